-- Up Migration

-- Stores several notifications in one transaction, one call of store_notification each: under load, one round
-- trip and one commit for a batch (src/repository/notifications.ts `insertNotifications`). Each answers with its
-- place in the arrays (from 1), or no row when its event was stored before.
--
-- The locks, each kind in a phase of its own so that the batch takes them in the order any other transaction does
-- (content, comment, recipient): every content's first, shared, then every comment's for its recipient, then the
-- recipients', the calls made in order of their ids (each one's in the order given, which their sequence follows).
-- A deletion takes one content's lock, then its recipients' (src/repository/retractions.ts), and a mention's
-- retraction one comment's, then its recipient's: a batch that held a recipient's lock while it waited for a
-- content's or a comment's could wait for one that waits for it.
CREATE FUNCTION store_notifications(
  notification_ids uuid[],
  recipients uuid[],
  notification_types text[],
  actors uuid[],
  about_types text[],
  about_ids uuid[],
  in_comments uuid[],
  made_ats timestamptz[],
  source_ids uuid[],
  source_types text[]
) RETURNS TABLE (place integer, stored_sequence bigint, unread_count integer, stream_is_open boolean, withheld_by text)
LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
DECLARE
  n integer;
BEGIN
  PERFORM lock_content_shared(c.about_type, c.about_id)
     FROM (SELECT DISTINCT a.about_type, a.about_id FROM unnest(about_types, about_ids) AS a(about_type, about_id)
            ORDER BY a.about_type, a.about_id) AS c;
  PERFORM lock_comment_notifications(c.recipient, c.in_comment)
     FROM (SELECT DISTINCT a.recipient, a.in_comment FROM unnest(recipients, in_comments) AS a(recipient, in_comment)
            WHERE a.in_comment IS NOT NULL ORDER BY a.recipient, a.in_comment) AS c;
  FOR n IN SELECT a.n FROM unnest(recipients) WITH ORDINALITY AS a(recipient, n) ORDER BY a.recipient, a.n LOOP
    RETURN QUERY
      SELECT n, s.stored_sequence, s.unread_count, s.stream_is_open, s.withheld_by
        FROM store_notification(notification_ids[n], recipients[n], notification_types[n], actors[n], about_types[n],
                                about_ids[n], in_comments[n], made_ats[n], source_ids[n], source_types[n]) AS s;
  END LOOP;
END;
$$;

-- Down Migration
DROP FUNCTION store_notifications(uuid[], uuid[], text[], uuid[], text[], uuid[], uuid[], timestamptz[], uuid[], text[]);
