import { type Pool, withTransaction } from '@recipes/db';
import { deleteRowsOf, type ErasureStep, idsOf } from '@recipes/runtime';
import { announceRetracted } from './notifications.js';
import * as retractions from './repository/retractions.js';

/**
 * Retracts, one recipient at a time, what the deleted user caused in others' inboxes, as a block does
 * (`retractFromBlocked`): off their lists and unread counts, and announced to their open streams.
 */
const retractCaused: (pool: Pool) => ErasureStep = (pool) => async (actorId, limit, correlationId) => {
  const recipients = await idsOf(
    pool,
    'SELECT DISTINCT recipient_id AS id FROM notifications WHERE actor_id = $1 AND retracted_at IS NULL ORDER BY id LIMIT $2',
    actorId,
    limit,
  );
  for (const recipientId of recipients) {
    await withTransaction(pool, async (tx) => {
      const retracted = await retractions.retractFromActor(tx, recipientId, actorId, new Date().toISOString());
      await announceRetracted(tx, recipientId, retracted, correlationId);
    });
  }
  return recipients.length;
};

/**
 * What notifications erases of a deleted user (docs/api.md §11.2): what they caused others is retracted,
 * then it and their own inbox go for good, with their push subscriptions, counts, preferences, stream
 * tickets and streams, and what the directories knew of them. Their streams closed as their sessions ended
 * (user.session.ended).
 */
export function erasureSteps(pool: Pool): ErasureStep[] {
  return [
    retractCaused(pool),
    // Their pushes waiting to be sent go with their subscriptions (push_deliveries cascades).
    deleteRowsOf(pool, 'push_subscriptions', 'user_id'),
    deleteRowsOf(pool, 'notifications', 'actor_id'),
    deleteRowsOf(pool, 'notifications', 'recipient_id'),
    deleteRowsOf(pool, 'notification_counts', 'recipient_id'),
    deleteRowsOf(pool, 'notification_preferences', 'recipient_id'),
    deleteRowsOf(pool, 'stream_tickets', 'recipient_id'),
    deleteRowsOf(pool, 'open_streams', 'recipient_id'),
    deleteRowsOf(pool, 'user_relations', 'user_id'),
    deleteRowsOf(pool, 'user_relations', 'target_id'),
    deleteRowsOf(pool, 'users', 'id'),
  ];
}
