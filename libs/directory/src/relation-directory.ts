import type { UserRelation } from '@recipes/contracts';
import type { Pool, Queryable } from '@recipes/db';
import { handleOnce } from '@recipes/outbox';
import { findBlockers, upsertRelation } from './repository.js';

/**
 * This service's knowledge of mutes and blocks (docs/api.md §10). Only events fill it: a mute or block
 * takes effect here as its event arrives (within a second in normal operation), with no look-up on a
 * request's path, and holds from then on, through any restart.
 */
export class RelationDirectory {
  constructor(private readonly pool: Pool) {}

  /**
   * Takes in the state of a pair an event brought, once per event; an older one than held changes nothing.
   * `then` runs in the same transaction afterwards, whether the state was newer or not (a service's own
   * effect of the change, which must converge too).
   */
  async remember(
    relation: UserRelation,
    event: { id: string; type: string },
    then?: (tx: Queryable) => Promise<void>,
  ): Promise<void> {
    await handleOnce(this.pool, event, async (tx) => {
      await upsertRelation(tx, relation);
      await then?.(tx);
    });
  }

  /** Those among `userIds` who block `actorId`: whom the actor may not mention, tag, or comment to. */
  async blockersOf(actorId: string, userIds: string[]): Promise<Set<string>> {
    if (userIds.length === 0) return new Set();
    return new Set(await findBlockers(this.pool, actorId, userIds));
  }

  async blocks(userId: string, targetId: string): Promise<boolean> {
    return (await this.blockersOf(targetId, [userId])).has(userId);
  }
}
