-- Up Migration

-- The content's lock in its shared mode, for storing a notification about it: stores about one recipe need
-- only keep out its deletion, which takes the lock itself (lock_content, migrations/011_store_notification.sql),
-- not each other. Taken exclusively, every notification about a popular recipe (its mentions, its owner's
-- comment notifications) waited for the commit of the one before. The same key, so the two modes meet.
CREATE FUNCTION lock_content_shared(content_type text, content_id uuid) RETURNS void LANGUAGE sql AS $$
  SELECT pg_advisory_xact_lock_shared(hashtextextended('notifications.content:' || content_type || ':' || content_id::text, 0))
$$;

-- Down Migration
DROP FUNCTION lock_content_shared(text, uuid);
