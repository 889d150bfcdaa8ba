import { withholdingRules } from './index.js';
import type { WithholdingRule } from './rule.js';

/**
 * `store_notification`'s arguments: the notification and the event it comes from. Named so
 * that none is a column of the tables it reads: the rules' SQL uses these names.
 */
const ARGUMENTS = [
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

const withheldBy = (rules: readonly WithholdingRule[]) =>
  `CASE\n${rules.map((rule) => `    WHEN ${rule.sql.replace(/\n\s*/g, ' ')} THEN '${rule.name}'`).join('\n')}\n  END`;

/**
 * The `CREATE FUNCTION` of `store_notification`, with the rules' conditions written in: what the generated
 * migration holds (`npm run docs` writes a new one when this changes; `npm run lint` fails until it has).
 *
 * One call, one round trip, its own transaction (or a part of the caller's). It writes the inbox row first (an
 * event stored before takes no lock and stores nothing: no row), then takes the locks, each held to the commit: the
 * content's, shared (a deletion takes it alone; stores about one content do not wait for each other), the comment's
 * for this recipient, the recipient's (a stream opening, a block, a mark), then their counts row, counted on in one statement. So their
 * notifications take their sequence numbers in commit order. The function is VOLATILE, so in READ COMMITTED each
 * statement in it takes a new snapshot as it begins: the rules, evaluated once the locks are held, see every
 * deletion, mute, block and preference committed before, however long the locks were waited for, and
 * `stream_is_open` is what `hasOpenStream` would say under the lock: a stream opening meanwhile waits, then reads
 * this notification from the table. It answers the stored notification's sequence, the unread count with it and
 * whether a stream of theirs is open (the service then prompts the streams, `record` in src/notifications.ts); or
 * the rule that withheld it (`withheld_by`). The INSERT has no ON CONFLICT: the rules keep duplicates out, so a
 * unique violation is a bug, and fails.
 */
export function storeNotificationFunction(rules: readonly WithholdingRule[] = withholdingRules): {
  /** What `DROP FUNCTION` names. */
  signature: string;
  create: string;
} {
  const signature = `store_notification(${ARGUMENTS.map(([, type]) => type).join(', ')})`;
  const create = `CREATE FUNCTION store_notification(
${ARGUMENTS.map(([name, type]) => `  ${name} ${type}`).join(',\n')}
) RETURNS TABLE (stored_sequence bigint, unread_count integer, stream_is_open boolean, withheld_by text)
LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
BEGIN
  INSERT INTO processed_events (event_id, event_type) VALUES (source_id, source_type) ON CONFLICT (event_id) DO NOTHING;
  IF NOT FOUND THEN
    RETURN;
  END IF;
  PERFORM lock_content_shared(about_type, about_id);
  IF in_comment IS NOT NULL THEN
    PERFORM lock_comment_notifications(recipient, in_comment);
  END IF;
  PERFORM lock_recipient(recipient);

  withheld_by := ${withheldBy(rules)};
  IF withheld_by IS NOT NULL THEN
    RETURN NEXT;
    RETURN;
  END IF;

  INSERT INTO notification_counts AS c (recipient_id, total, unread, last_sequence, version) VALUES (recipient, 1, 1, 1, 1)
  ON CONFLICT (recipient_id) DO UPDATE
     SET total = c.total + 1, unread = c.unread + 1, last_sequence = c.last_sequence + 1, version = c.version + 1
  RETURNING c.last_sequence, c.unread INTO stored_sequence, unread_count;
  INSERT INTO notifications (id, recipient_id, type, actor_id, content_type, content_id, comment_id, created_at, source_event_id, sequence)
  VALUES (notification_id, recipient, notification_type, actor, about_type, about_id, in_comment, made_at, source_id, stored_sequence);
  stream_is_open := EXISTS (SELECT 1 FROM open_streams s WHERE s.recipient_id = recipient);
  RETURN NEXT;
END;
$$`;
  return { signature, create };
}
