import type { userRelationSchema } from '@recipes/contracts';
import {
  type Author,
  createEvent,
  type EventDefinition,
  listCursor,
  listPagination,
  type ListPagination,
  type ListQuery,
  listRequest,
  userBlocked,
  userMuted,
  userUnblocked,
  userUnmuted,
  type UserRelation,
} from '@recipes/contracts';
import { type Pool, withTransaction } from '@recipes/db';
import { enqueue } from '@recipes/outbox';
import * as repository from './repository.js';
import type { RelationKind, RelationRecord } from './repository.js';

export type { RelationKind };

const PRODUCER = 'users';

/** The cursors of the caller's mutes and of their blocks (docs/api.md §10.1): neither reads the other's. */
export const relatedUsersCursor = { mute: listCursor('user-mutes'), block: listCursor('user-blocks') } as const;

/** The event that tells the other services of each change: started (`true`) or ended. */
const eventOf: Record<RelationKind, Record<'true' | 'false', EventDefinition<string, typeof userRelationSchema>>> = {
  mute: { true: userMuted, false: userUnmuted },
  block: { true: userBlocked, false: userUnblocked },
};

export const toRelationSnapshot = (record: RelationRecord): UserRelation => ({
  userId: record.userId,
  targetId: record.targetId,
  muted: record.muted,
  blocked: record.blocked,
  revision: record.revision,
  changedAt: record.changedAt.toISOString(),
  lastUnblockedAt: record.lastUnblockedAt?.toISOString() ?? null,
});

/**
 * Mutes and blocks (docs/api.md §10): this service owns them, and the services that act on them (comments,
 * content, notifications) learn of every change from its events, each stored with the change it tells.
 */
export function relations(pool: Pool) {
  return {
    /**
     * Starts or ends `userId`'s mute or block of `targetId` (an existing other user); idempotent: asking
     * for what already holds changes nothing and tells nobody. Gives whether it holds now.
     */
    async set(
      userId: string,
      targetId: string,
      kind: RelationKind,
      on: boolean,
      correlationId: string,
    ): Promise<boolean> {
      await withTransaction(pool, async (tx) => {
        const changed = await repository.setRelation(tx, userId, targetId, kind, on);
        if (changed)
          await enqueue(
            tx,
            createEvent(eventOf[kind][`${on}`], toRelationSnapshot(changed), { producer: PRODUCER, correlationId }),
          );
      });
      return on;
    },

    /** The users `userId` mutes or blocks, most recent first. */
    async list(
      userId: string,
      kind: RelationKind,
      query: ListQuery,
    ): Promise<{ users: Author[]; pagination: ListPagination }> {
      const { rows, total, next } = await repository.findRelatedPage(pool, userId, kind, listRequest(query));
      return { users: rows, pagination: listPagination(query, total, next, relatedUsersCursor[kind]) };
    },
  };
}

export type Relations = ReturnType<typeof relations>;
