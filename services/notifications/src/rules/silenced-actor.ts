import type { WithholdingRule } from './rule.js';

/**
 * Nothing the recipient silenced (docs/api.md §10.4): the actor muted or blocked by them now, or blocked at some
 * time after it was made (a block that ended before its event came: what the actor made before a block ended is
 * retracted by it, so it is not stored either, in whatever order the events come). A block handled after this is
 * either seen here or retracts what this stored (`retractFromBlocked`): both take the recipient's lock.
 */
export const silencedActor: WithholdingRule = {
  name: 'silenced_actor',
  sql: `EXISTS (SELECT 1 FROM user_relations r
                 WHERE r.user_id = recipient AND r.target_id = actor
                   AND (r.muted OR r.blocked OR made_at <= r.last_unblocked_at))`,
  withholds: (world, n) =>
    world.relations.some(
      (r) =>
        r.userId === n.recipientId &&
        r.targetId === n.actorId &&
        (r.muted ||
          r.blocked ||
          (r.lastUnblockedAt !== null && Date.parse(n.createdAt) <= Date.parse(r.lastUnblockedAt))),
    ),
};
