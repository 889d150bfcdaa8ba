import { createEvent, type EventEnvelope, type UserErased, userDeleted } from '@recipes/contracts';
import { type Pool, withTransaction } from '@recipes/db';
import { enqueue, handleOnce } from '@recipes/outbox';
import * as repository from './repository/deletions.js';
import type { Sessions } from './sessions.js';

const PRODUCER = 'users';

/** What this service counts about an account outside its schema (the shared store's limits), forgotten with it. */
export interface AccountCounts {
  /** Idempotent; fails as `unavailable` while the store is away. */
  forget(userId: string, username: string): Promise<void>;
}

/**
 * Account deletion (docs/api.md §11.2), a saga this service leads: the account becomes a tombstone, its
 * sessions end and this service's own part of it goes at once, in one transaction with the `user.deleted`
 * event; each other service erases its part and confirms, and the deletion is complete once all have.
 */
export function deletions(pool: Pool, sessions: Sessions, counts: AccountCounts) {
  return {
    /** Starts the deletion of the live account `userId`; false when it is no live account. */
    async start(userId: string, correlationId: string): Promise<boolean> {
      const started = await withTransaction(pool, async (tx) => {
        const deletedAt = await repository.tombstone(tx, userId);
        if (!deletedAt) return undefined;
        const ended = await sessions.endAllOfDeletedIn(tx, userId, correlationId);
        await repository.eraseOwnParts(tx, userId);
        const data = {
          userId,
          deletedAt: deletedAt.toISOString(),
          sessionIds: ended.ids,
          tokensExpireBy: ended.tokensExpireBy,
        };
        await enqueue(tx, createEvent(userDeleted, data, { producer: PRODUCER, correlationId }));
        return ended;
      });
      // This process refuses the ended sessions' tokens from now on; the others learn it from the event.
      started?.committed();
      return started !== undefined;
    },

    /**
     * Records a service's confirmation that its part of a deleted user is gone; once per event. Before it, what this
     * service counted of them in the shared store goes (`AccountCounts`), at each confirmation, so that when the last
     * one completes the deletion nothing counts them anywhere, whatever came in between (a login tried with their
     * name); a store away holds the confirmation until it is back.
     */
    async confirmed(erased: UserErased, event: EventEnvelope): Promise<void> {
      const deletion = await repository.findDeletion(pool, erased.userId);
      if (deletion) await counts.forget(erased.userId, deletion.username);
      await handleOnce(pool, event, (tx) => repository.recordErasure(tx, erased.userId, erased.service));
    },

    /** Where the deletion of `userId` stands, if it was deleted. */
    find: (userId: string) => repository.findDeletion(pool, userId),

    /** Deletions begun more than `seconds` ago that some service has not confirmed yet. */
    incompleteOlderThan: (seconds: number) => repository.countIncompleteDeletions(pool, seconds),
  };
}

export type Deletions = ReturnType<typeof deletions>;
