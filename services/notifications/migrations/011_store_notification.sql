-- Up Migration

-- The advisory locks of the service (src/repository/notifications.ts), held to the end of the transaction,
-- named here once for store_notification below and for the statements the service sends itself. Their
-- keys are those the service used before, so that an instance not yet updated and an updated one still
-- wait for each other. None needs a row: opening a stream leaves none behind.
-- A recipient's: storing, retracting or marking their notifications and opening a stream of theirs.
CREATE FUNCTION lock_recipient(recipient uuid) RETURNS void LANGUAGE sql AS $$
  SELECT pg_advisory_xact_lock(hashtextextended('notifications.recipient:' || recipient::text, 0))
$$;
-- A recipe's, post's or collection's: storing a notification about it and retracting those about it as
-- it is deleted. Taken before any other lock.
CREATE FUNCTION lock_content(content_type text, content_id uuid) RETURNS void LANGUAGE sql AS $$
  SELECT pg_advisory_xact_lock(hashtextextended('notifications.content:' || content_type || ':' || content_id::text, 0))
$$;
-- One user's notifications about one comment: a mention and its retraction handled at the same moment
-- cannot both find nothing there.
CREATE FUNCTION lock_comment_notifications(recipient uuid, comment_id uuid) RETURNS void LANGUAGE sql AS $$
  SELECT pg_advisory_xact_lock(hashtextextended('notifications:' || recipient::text || ':' || comment_id::text, 0))
$$;

-- Stores a notification once per source event, counts it for its recipient, and writes `announcement`
-- (its notification.created, built by the service, whose data's sequence and unread count are written in
-- here) to the outbox when a stream of theirs is open; returns its sequence, their unread count with it
-- and whether a stream is open, or no row when nothing was stored. One call, one round trip: the service
-- sends no BEGIN and no COMMIT, the call is its own transaction (or a part of the caller's).
--
-- The locks come first, in this order, each held to the commit: the inbox row (an event stored before
-- takes no lock and stores nothing), the content's, a mention's comment lock, the recipient's, then
-- their counts row. So their notifications take their sequence numbers in commit order
-- (migrations/003_streams.sql), and a stream opening, a block, a deletion meanwhile waits for this one.
--
-- This function is VOLATILE (the default), so in READ COMMITTED (the service's level) each statement in it
-- takes a new snapshot as it begins, not the one the call began with: those after the recipient's lock
-- see every stream opened (open_streams), every deletion, mute, block and preference committed before
-- the locks were granted, however long they were waited for. `stream_open` is what `hasOpenStream` would
-- say under the lock. (A function marked STABLE would keep the call's snapshot for all of them.)
CREATE FUNCTION store_notification(
  notification_id uuid,
  recipient uuid,
  notification_type text,
  actor uuid,
  about_type text,
  about_id uuid,
  -- A mention's comment; NULL for a tag.
  in_comment uuid,
  made_at timestamptz,
  -- The event it comes from.
  source_id uuid,
  source_type text,
  -- Its notification.created, or NULL for none.
  announcement jsonb
) RETURNS TABLE (sequence bigint, unread integer, stream_open boolean)
LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
BEGIN
  -- The inbox row, as `handleOnce` (libs/outbox) writes it: none for an event stored before.
  INSERT INTO processed_events (event_id, event_type) VALUES (source_id, source_type) ON CONFLICT (event_id) DO NOTHING;
  IF NOT FOUND THEN
    RETURN;
  END IF;
  PERFORM lock_content(about_type, about_id);
  IF in_comment IS NOT NULL THEN
    PERFORM lock_comment_notifications(recipient, in_comment);
  END IF;
  PERFORM lock_recipient(recipient);
  INSERT INTO notification_counts AS c (recipient_id, total, unread) VALUES (recipient, 0, 0)
  ON CONFLICT (recipient_id) DO UPDATE SET recipient_id = EXCLUDED.recipient_id
  RETURNING c.last_sequence + 1 INTO sequence;

  -- From here on, statements that begin with every lock held. Nothing is stored about content deleted
  -- before (deleted_content, see `retractAboutContent`), nor what the recipient silenced: the actor muted
  -- or blocked by them now, or blocked at some time after it was made (a block ended before its event
  -- came: what the actor made before a block ended is retracted by it, so it is not stored either, in
  -- whatever order the events come), or its type turned off (docs/api.md §10). A block handled after this
  -- is either seen here or retracts what this stored (`retractFromBlocked`). The same source event stored
  -- before, or a mention of a user the comment has notified already (retracted since, or not), changes
  -- nothing, counts included.
  INSERT INTO notifications (id, recipient_id, type, actor_id, content_type, content_id, comment_id, created_at, source_event_id, sequence)
  SELECT notification_id, recipient, notification_type, actor, about_type, about_id, in_comment, made_at, source_id, sequence
   WHERE NOT EXISTS (SELECT 1 FROM deleted_content d WHERE d.content_id = about_id AND d.content_type = about_type)
     AND NOT EXISTS (SELECT 1 FROM user_relations r
                      WHERE r.user_id = recipient AND r.target_id = actor
                        AND (r.muted OR r.blocked OR made_at <= r.last_unblocked_at))
     AND NOT EXISTS (SELECT 1 FROM notification_preferences p WHERE p.recipient_id = recipient AND p.type = notification_type AND NOT p.enabled)
  ON CONFLICT DO NOTHING;
  IF NOT FOUND THEN
    RETURN;
  END IF;
  UPDATE notification_counts c
     SET total = c.total + 1, unread = c.unread + 1, last_sequence = sequence, version = c.version + 1
   WHERE c.recipient_id = recipient
  RETURNING c.unread INTO unread;
  stream_open := EXISTS (SELECT 1 FROM open_streams s WHERE s.recipient_id = recipient);

  -- The service built and checked the announcement (`outboxRow`); it goes out as notification.created
  -- only, which this states for the catalogue check (libs/testing), with its sequence and unread count.
  IF stream_open AND announcement IS NOT NULL THEN
    INSERT INTO outbox (id, type, payload)
    SELECT (announcement->>'id')::uuid, 'notification.created',
           jsonb_set(jsonb_set(announcement, '{data,sequence}', to_jsonb(sequence)), '{data,unreadCount}', to_jsonb(unread))
     WHERE announcement @> jsonb_build_object('type', 'notification.created', 'version', 1, 'producer', 'notifications');
    IF NOT FOUND THEN
      RAISE EXCEPTION 'store_notification announces notification.created v1 only, not % v%', announcement->>'type', announcement->>'version';
    END IF;
  END IF;
  RETURN NEXT;
END;
$$;

COMMENT ON FUNCTION store_notification(uuid, uuid, text, uuid, text, uuid, uuid, timestamptz, uuid, text, jsonb) IS
  'Stores a notification in one call (one round trip) where BEGIN, two statements and COMMIT took four: the locks first (inbox row, content, comment, recipient, counts row), then the notification, its count and its announcement. VOLATILE, so in READ COMMITTED each of its statements takes a new snapshot: those after the locks see every stream opened before they were granted.';

-- Down Migration
DROP FUNCTION store_notification(uuid, uuid, text, uuid, text, uuid, uuid, timestamptz, uuid, text, jsonb);
DROP FUNCTION lock_comment_notifications(uuid, uuid);
DROP FUNCTION lock_content(text, uuid);
DROP FUNCTION lock_recipient(uuid);
