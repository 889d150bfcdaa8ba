import { withholdingRules } from './index.js';
import type { WithholdingRule } from './rule.js';

/**
 * What is known of each notification, as the rules' SQL names it: the notification and the event it comes from,
 * each a variable of `store_notifications` taken from its arrays (named in the plural) in turn. Named so that none
 * is a column of the tables it reads.
 */
const NOTIFICATION = [
  ['notification_id', 'uuid'],
  ['recipient', 'uuid'],
  ['notification_type', 'text'],
  ['actor', 'uuid'],
  ['about_type', 'text'],
  ['about_id', 'uuid'],
  // The comment it comes from (a mention, a reply, a comment on the recipient's content); NULL for a tag.
  ['in_comment', 'uuid'],
  ['made_at', 'timestamptz'],
  // The event it comes from: its inbox row.
  ['source_id', 'uuid'],
  ['source_type', 'text'],
] as const;

/** The array argument of `store_notifications` that holds `name`'s values. */
const arrayOf = (name: string) => `${name}s`;

const withheldBy = (rules: readonly WithholdingRule[]) =>
  `CASE\n${rules.map((rule) => `      WHEN ${rule.sql.replace(/\n\s*/g, ' ')} THEN '${rule.name}'`).join('\n')}\n    END`;

/**
 * The `CREATE FUNCTION` of `store_notifications`, with the rules' conditions written in: what the generated
 * migration holds (`npm run docs` writes a new one when this changes; `npm run lint` fails until it has).
 *
 * Stores several notifications in one call, one round trip and one transaction (or a part of the caller's):
 * under load, a batch (src/repository/notifications.ts `insertNotifications`). Each answers with its place in the
 * arrays (from 1), or no row when its event was stored before.
 *
 * The locks, each held to the commit and each kind in a phase of its own, so that the batch takes them in the order
 * any other transaction does (content, comment, recipient): every content's first, shared (a deletion takes it
 * alone; stores about one content do not wait for each other), then every comment's for its recipient, then, one
 * notification at a time in order of their recipients' ids (each one's in the order given, which their sequence
 * follows), the recipient's (a stream opening, a block, a mark), then their counts row. A deletion takes one
 * content's lock, then its recipients' (src/repository/retractions.ts), and a mention's retraction one comment's,
 * then its recipient's: a batch that held a recipient's lock while it waited for a content's or a comment's could
 * wait for one that waits for it. So their notifications take their sequence numbers in commit order.
 *
 * Each notification writes its inbox row first (an event stored before takes no recipient's lock and stores
 * nothing: no row), then takes its recipient's lock (its content's and comment's are held since the phases). The
 * function is VOLATILE, so in READ COMMITTED each statement in it takes a new snapshot as it begins: the rules,
 * evaluated once the locks are held, see every deletion, mute, block and preference committed before, however long
 * the locks were waited for, and
 * `stream_is_open` is what `hasOpenStream` would say under the lock: a stream opening meanwhile waits, then reads
 * this notification from the table. It answers the stored notification's sequence, the unread count with it and
 * whether a stream of theirs is open (the service then prompts the streams, `record` in src/notifications.ts); or
 * the rule that withheld it (`withheld_by`). The INSERT has no ON CONFLICT: the rules keep duplicates out, so a
 * unique violation is a bug, and fails. The notifications are stored in one loop, not by a function called for
 * each: a call of a set-returning function for each cost more than the statements it ran.
 */
export function storeNotificationsFunction(rules: readonly WithholdingRule[] = withholdingRules): {
  /** What `DROP FUNCTION` names. */
  signature: string;
  create: string;
} {
  const signature = `store_notifications(${NOTIFICATION.map(([, type]) => `${type}[]`).join(', ')})`;
  const create = `CREATE FUNCTION store_notifications(
${NOTIFICATION.map(([name, type]) => `  ${arrayOf(name)} ${type}[]`).join(',\n')}
) RETURNS TABLE (place integer, stored_sequence bigint, unread_count integer, stream_is_open boolean, withheld_by text)
LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
DECLARE
${NOTIFICATION.map(([name, type]) => `  ${name} ${type};`).join('\n')}
BEGIN
  PERFORM lock_content_shared(c.about_type, c.about_id)
     FROM (SELECT DISTINCT a.about_type, a.about_id FROM unnest(about_types, about_ids) AS a(about_type, about_id)
            ORDER BY a.about_type, a.about_id) AS c;
  PERFORM lock_comment_notifications(c.recipient, c.in_comment)
     FROM (SELECT DISTINCT a.recipient, a.in_comment FROM unnest(recipients, in_comments) AS a(recipient, in_comment)
            WHERE a.in_comment IS NOT NULL ORDER BY a.recipient, a.in_comment) AS c;
  FOR place IN SELECT a.n FROM unnest(recipients) WITH ORDINALITY AS a(recipient, n) ORDER BY a.recipient, a.n LOOP
${NOTIFICATION.map(([name]) => `    ${name} := ${arrayOf(name)}[place];`).join('\n')}
    stored_sequence := NULL;
    unread_count := NULL;
    stream_is_open := NULL;
    INSERT INTO processed_events (event_id, event_type) VALUES (source_id, source_type) ON CONFLICT (event_id) DO NOTHING;
    CONTINUE WHEN NOT FOUND;
    PERFORM lock_recipient(recipient);

    withheld_by := ${withheldBy(rules)};
    IF withheld_by IS NOT NULL THEN
      RETURN NEXT;
      CONTINUE;
    END IF;

    INSERT INTO notification_counts AS c (recipient_id, total, unread, last_sequence, version) VALUES (recipient, 1, 1, 1, 1)
    ON CONFLICT (recipient_id) DO UPDATE
       SET total = c.total + 1, unread = c.unread + 1, last_sequence = c.last_sequence + 1, version = c.version + 1
    RETURNING c.last_sequence, c.unread INTO stored_sequence, unread_count;
    INSERT INTO notifications (id, recipient_id, type, actor_id, content_type, content_id, comment_id, created_at, source_event_id, sequence)
    VALUES (notification_id, recipient, notification_type, actor, about_type, about_id, in_comment, made_at, source_id, stored_sequence);
    stream_is_open := EXISTS (SELECT 1 FROM open_streams s WHERE s.recipient_id = recipient);
    RETURN NEXT;
  END LOOP;
END;
$$`;
  return { signature, create };
}
