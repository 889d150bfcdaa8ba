-- Up Migration

-- A user's unread notifications, newest first (docs/api.md §10.2, `unread=true`): only the unread are in
-- it, so the page of someone who has read nearly all of a long list reads `limit` entries, not the list.
CREATE INDEX notifications_unread_listing_idx ON notifications (recipient_id, created_at DESC, id DESC)
  WHERE retracted_at IS NULL AND NOT is_read;

-- The group of a notification (docs/api.md §10.5): the same type on the same content, written out. The type
-- names the kind of content, so the content's id completes it. Computed by PostgreSQL from the row, so it is
-- there for the rows stored before, and no statement that stores one has anything more to write.
ALTER TABLE notifications ADD COLUMN group_key text GENERATED ALWAYS AS (type || ':' || content_id::text) STORED;

-- A user's groups: each group's notifications together, newest first, for its latest one, its actors
-- and for marking it read.
CREATE INDEX notifications_group_idx ON notifications (recipient_id, group_key, created_at DESC, id DESC) WHERE retracted_at IS NULL;

-- Down Migration
DROP INDEX notifications_group_idx;
ALTER TABLE notifications DROP COLUMN group_key;
DROP INDEX notifications_unread_listing_idx;
