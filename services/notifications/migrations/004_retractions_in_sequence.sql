-- Up Migration

-- A retraction takes a place in its recipient's sequence, from the same counter as their notifications
-- (`notification_counts.last_sequence`, under the same lock), so that a stream learns of it as it learns
-- of a new notification: by reading what changed after the last place it sent, live or on resume
-- (docs/api.md §9). Retractions from before this migration, and tombstones, have none.
ALTER TABLE notifications ADD COLUMN retraction_sequence bigint;
CREATE UNIQUE INDEX notifications_retraction_sequence_idx ON notifications (recipient_id, retraction_sequence)
  WHERE retraction_sequence IS NOT NULL;

-- Recipes, posts and collections deleted: their notifications are retracted, and a mention or tag of
-- them that comes later is never stored (docs/api.md §7). One row per deleted item, kept.
CREATE TABLE deleted_content (
  content_type text NOT NULL,
  content_id uuid NOT NULL,
  PRIMARY KEY (content_id, content_type)
);
CREATE INDEX notifications_content_idx ON notifications (content_id) WHERE retracted_at IS NULL;

-- Down Migration
DROP INDEX notifications_content_idx;
DROP TABLE deleted_content;
DROP INDEX notifications_retraction_sequence_idx;
ALTER TABLE notifications DROP COLUMN retraction_sequence;
