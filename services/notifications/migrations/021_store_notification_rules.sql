-- Up Migration

-- store_notifications as the rules of src/rules render it (src/rules/store-function.ts): written by
-- `npm run docs`, checked by `npm run lint`. Each rule that withholds a notification is a file of src/rules.
-- It now stores each notification in a loop of its own, where it called store_notification for each (a call of
-- a set-returning function, with its GUC and its result set, cost more than the statements it ran): that one goes.
DROP FUNCTION store_notifications(uuid[], uuid[], text[], uuid[], text[], uuid[], uuid[], timestamptz[], uuid[], text[]);
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
  notification_id uuid;
  recipient uuid;
  notification_type text;
  actor uuid;
  about_type text;
  about_id uuid;
  in_comment uuid;
  made_at timestamptz;
  source_id uuid;
  source_type text;
BEGIN
  PERFORM lock_content_shared(c.about_type, c.about_id)
     FROM (SELECT DISTINCT a.about_type, a.about_id FROM unnest(about_types, about_ids) AS a(about_type, about_id)
            ORDER BY a.about_type, a.about_id) AS c;
  PERFORM lock_comment_notifications(c.recipient, c.in_comment)
     FROM (SELECT DISTINCT a.recipient, a.in_comment FROM unnest(recipients, in_comments) AS a(recipient, in_comment)
            WHERE a.in_comment IS NOT NULL ORDER BY a.recipient, a.in_comment) AS c;
  FOR place IN SELECT a.n FROM unnest(recipients) WITH ORDINALITY AS a(recipient, n) ORDER BY a.recipient, a.n LOOP
    notification_id := notification_ids[place];
    recipient := recipients[place];
    notification_type := notification_types[place];
    actor := actors[place];
    about_type := about_types[place];
    about_id := about_ids[place];
    in_comment := in_comments[place];
    made_at := made_ats[place];
    source_id := source_ids[place];
    source_type := source_types[place];
    stored_sequence := NULL;
    unread_count := NULL;
    stream_is_open := NULL;
    INSERT INTO processed_events (event_id, event_type) VALUES (source_id, source_type) ON CONFLICT (event_id) DO NOTHING;
    CONTINUE WHEN NOT FOUND;
    PERFORM lock_recipient(recipient);

    withheld_by := CASE
      WHEN EXISTS (SELECT 1 FROM notifications n WHERE n.source_event_id = source_id) THEN 'event_stored_before'
      WHEN EXISTS (SELECT 1 FROM erased_users e WHERE e.id_hash IN (sha256(convert_to(recipient::text, 'UTF8')), sha256(convert_to(actor::text, 'UTF8')))) THEN 'erased_user'
      WHEN EXISTS (SELECT 1 FROM deleted_content d WHERE d.content_id = about_id AND d.content_type = about_type) THEN 'deleted_content'
      WHEN EXISTS (SELECT 1 FROM deleted_comments dc WHERE dc.comment_id = in_comment) THEN 'deleted_comment'
      WHEN EXISTS (SELECT 1 FROM user_relations r WHERE r.user_id = recipient AND r.target_id = actor AND (r.muted OR r.blocked OR made_at <= r.last_unblocked_at)) THEN 'silenced_actor'
      WHEN EXISTS (SELECT 1 FROM notification_preferences p WHERE p.recipient_id = recipient AND p.type = notification_type AND NOT p.enabled) THEN 'type_turned_off'
      WHEN EXISTS (SELECT 1 FROM notifications n WHERE n.recipient_id = recipient AND n.comment_id = in_comment) THEN 'notified_of_comment'
    END;
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
$$;
DROP FUNCTION store_notification(uuid, uuid, text, uuid, text, uuid, uuid, timestamptz, uuid, text);
COMMENT ON TRIGGER queue_pushes ON notifications IS
  'store_notifications stores notifications in one round trip, and other paths may store them too; this queues their pushes (docs/api.md §11.3) in the same transaction without another round trip, so a restart between storing and sending loses none.';

-- Down Migration
DROP FUNCTION store_notifications(uuid[], uuid[], text[], uuid[], text[], uuid[], uuid[], timestamptz[], uuid[], text[]);
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
CREATE FUNCTION store_notification(
  notification_id uuid,
  recipient uuid,
  notification_type text,
  actor uuid,
  about_type text,
  about_id uuid,
  in_comment uuid,
  made_at timestamptz,
  source_id uuid,
  source_type text
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

  withheld_by := CASE
    WHEN EXISTS (SELECT 1 FROM notifications n WHERE n.source_event_id = source_id) THEN 'event_stored_before'
    WHEN EXISTS (SELECT 1 FROM erased_users e WHERE e.id_hash IN (sha256(convert_to(recipient::text, 'UTF8')), sha256(convert_to(actor::text, 'UTF8')))) THEN 'erased_user'
    WHEN EXISTS (SELECT 1 FROM deleted_content d WHERE d.content_id = about_id AND d.content_type = about_type) THEN 'deleted_content'
    WHEN EXISTS (SELECT 1 FROM deleted_comments dc WHERE dc.comment_id = in_comment) THEN 'deleted_comment'
    WHEN EXISTS (SELECT 1 FROM user_relations r WHERE r.user_id = recipient AND r.target_id = actor AND (r.muted OR r.blocked OR made_at <= r.last_unblocked_at)) THEN 'silenced_actor'
    WHEN EXISTS (SELECT 1 FROM notification_preferences p WHERE p.recipient_id = recipient AND p.type = notification_type AND NOT p.enabled) THEN 'type_turned_off'
    WHEN EXISTS (SELECT 1 FROM notifications n WHERE n.recipient_id = recipient AND n.comment_id = in_comment) THEN 'notified_of_comment'
  END;
  IF withheld_by IS NOT NULL THEN
    RETURN NEXT;
    RETURN;
  END IF;

  INSERT INTO notification_counts AS c (recipient_id, total, unread) VALUES (recipient, 0, 0)
  ON CONFLICT (recipient_id) DO UPDATE SET recipient_id = EXCLUDED.recipient_id
  RETURNING c.last_sequence + 1 INTO stored_sequence;
  INSERT INTO notifications (id, recipient_id, type, actor_id, content_type, content_id, comment_id, created_at, source_event_id, sequence)
  VALUES (notification_id, recipient, notification_type, actor, about_type, about_id, in_comment, made_at, source_id, stored_sequence);
  UPDATE notification_counts c
     SET total = c.total + 1, unread = c.unread + 1, last_sequence = stored_sequence, version = c.version + 1
   WHERE c.recipient_id = recipient
  RETURNING c.unread INTO unread_count;
  stream_is_open := EXISTS (SELECT 1 FROM open_streams s WHERE s.recipient_id = recipient);
  RETURN NEXT;
END;
$$;
COMMENT ON TRIGGER queue_pushes ON notifications IS
  'store_notification stores a notification in one round trip, and other paths may store them too; this queues its pushes (docs/api.md §11.3) in the same transaction without another round trip, so a restart between storing and sending loses none.';
