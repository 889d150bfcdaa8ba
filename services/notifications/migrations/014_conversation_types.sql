-- Up Migration

-- Conversations (docs/api.md §11.4): replies, and comments on a user's recipe, post or collection, notify
-- as mentions do. Each of these is about one comment, like a mention, so `comment_id` names it and the
-- index of migrations/002 keeps it to one notification per user per comment, whichever type comes.
ALTER TABLE notifications DROP CONSTRAINT notifications_type_check;
ALTER TABLE notifications ADD CONSTRAINT notifications_type_check CHECK (type IN (
  'mention_recipe_comment', 'mention_collection_comment', 'mention_post_comment', 'tag_recipe', 'tag_post',
  'reply_comment', 'comment_recipe', 'comment_post', 'comment_collection'
));
ALTER TABLE notifications DROP CONSTRAINT notifications_check;
ALTER TABLE notifications ADD CONSTRAINT notifications_comment_id_check CHECK ((comment_id IS NOT NULL) = (type NOT LIKE 'tag\_%'));

-- The comments this service has learnt are deleted (comment.deleted): nothing from them is stored from
-- then on, whichever comes first, the deletion or what it retracts, as deleted_content does for content.
CREATE TABLE deleted_comments (
  comment_id uuid PRIMARY KEY
);

-- The notifications a comment caused, found as it is deleted.
CREATE INDEX notifications_comment_idx ON notifications (comment_id) WHERE comment_id IS NOT NULL AND retracted_at IS NULL;

-- store_notification of migrations/011, which now also stores nothing from a deleted comment.
CREATE OR REPLACE FUNCTION store_notification(
  notification_id uuid,
  recipient uuid,
  notification_type text,
  actor uuid,
  about_type text,
  about_id uuid,
  -- The comment it comes from (a mention, a reply, a comment on the recipient's content); NULL for a tag.
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
  -- whatever order the events come), or its type turned off (docs/api.md §10), nor anything from a comment
  -- deleted before (deleted_comments, see `retractAboutComment`). A block handled after this
  -- is either seen here or retracts what this stored (`retractFromBlocked`). The same source event stored
  -- before, or a notification of a user the comment has notified already (retracted since, or not), changes
  -- nothing, counts included: one comment gives a user one notification at most.
  INSERT INTO notifications (id, recipient_id, type, actor_id, content_type, content_id, comment_id, created_at, source_event_id, sequence)
  SELECT notification_id, recipient, notification_type, actor, about_type, about_id, in_comment, made_at, source_id, sequence
   WHERE NOT EXISTS (SELECT 1 FROM deleted_content d WHERE d.content_id = about_id AND d.content_type = about_type)
     AND NOT EXISTS (SELECT 1 FROM user_relations r
                      WHERE r.user_id = recipient AND r.target_id = actor
                        AND (r.muted OR r.blocked OR made_at <= r.last_unblocked_at))
     AND NOT EXISTS (SELECT 1 FROM notification_preferences p WHERE p.recipient_id = recipient AND p.type = notification_type AND NOT p.enabled)
     AND NOT EXISTS (SELECT 1 FROM deleted_comments dc WHERE dc.comment_id = in_comment)
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

-- Down Migration
CREATE OR REPLACE FUNCTION store_notification(
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
DROP INDEX notifications_comment_idx;
DROP TABLE deleted_comments;
ALTER TABLE notifications DROP CONSTRAINT notifications_comment_id_check;
ALTER TABLE notifications ADD CONSTRAINT notifications_check CHECK ((comment_id IS NOT NULL) = (type LIKE 'mention\_%'));
ALTER TABLE notifications DROP CONSTRAINT notifications_type_check;
ALTER TABLE notifications ADD CONSTRAINT notifications_type_check CHECK (type IN (
  'mention_recipe_comment', 'mention_collection_comment', 'mention_post_comment', 'tag_recipe', 'tag_post'
));
