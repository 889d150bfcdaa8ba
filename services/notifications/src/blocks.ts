import type { EventEnvelope, UserRelation } from '@recipes/contracts';
import type { RelationDirectory } from '@recipes/directory';
import { announceRetracted } from './notifications.js';
import { retractFromBlocked } from './repository/retractions.js';

/**
 * Blocks, as the notifications service follows them (docs/api.md §10): a user.blocked or user.unblocked
 * updates the read model and, in the same transaction, retracts the blocker's notifications the block
 * covers (announced to their open streams), once however often the event comes. Unblocking brings nothing
 * back; handled before its block, it retracts what the block would have.
 */
export function blocks(relations: RelationDirectory) {
  return {
    async follow(event: EventEnvelope, relation: UserRelation): Promise<void> {
      await relations.remember(relation, event, async (tx) => {
        const retracted = await retractFromBlocked(tx, relation.userId, relation.targetId, event.occurredAt);
        await announceRetracted(tx, relation.userId, retracted, event.correlationId);
      });
    },
  };
}

export type Blocks = ReturnType<typeof blocks>;
