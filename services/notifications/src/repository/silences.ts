/*
 * What keeps a mention or a tag from notifying its recipient (docs/api.md §10): the actor muted or blocked
 * by them, or the type turned off by them. The user relations are the read model of libs/directory
 * (`directoryTables.relations`), kept by the user.muted … user.unblocked events.
 */

/**
 * SQL that is true when a notification of `type` from `actor` to `recipient`, made at `createdAt` (SQL
 * expressions, e.g. parameters), must not be stored: the recipient mutes or blocks the actor now, or
 * blocked them at some time after it was made (a block ended before its event came: what the actor made
 * before a block ended is retracted by it, so it is not stored either, in whatever order the events come),
 * or has turned `type` off. Evaluated by the statement that stores the notification once the recipient's
 * lock is held (see `insertNotification`), so a block handled meanwhile is either seen here or retracts
 * what this stored (`retractFromBlocked`).
 */
export const silenced = (recipient: string, actor: string, type: string, createdAt: string) =>
  `(EXISTS (SELECT 1 FROM user_relations r
             WHERE r.user_id = ${recipient} AND r.target_id = ${actor}
               AND (r.muted OR r.blocked OR ${createdAt}::timestamptz <= r.last_unblocked_at))
    OR EXISTS (SELECT 1 FROM notification_preferences p WHERE p.recipient_id = ${recipient} AND p.type = ${type} AND NOT p.enabled))`;
