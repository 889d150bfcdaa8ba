-- Up Migration

-- A mention taken back (the comment edited without it, or deleted) retracts its notification: the row
-- stays, marked, and leaves the listing and the counts. It also stands for every later mention of the
-- same user in the same comment, which never notifies again: one notification per user and comment,
-- ever. A retraction that comes before its mention leaves such a row, already retracted.
ALTER TABLE notifications ADD COLUMN retracted_at timestamptz;
CREATE UNIQUE INDEX notifications_one_per_comment_idx ON notifications (recipient_id, comment_id) WHERE comment_id IS NOT NULL;
DROP INDEX notifications_listing_idx;
CREATE INDEX notifications_listing_idx ON notifications (recipient_id, created_at DESC, id DESC) WHERE retracted_at IS NULL;

-- Down Migration
DROP INDEX notifications_listing_idx;
CREATE INDEX notifications_listing_idx ON notifications (recipient_id, created_at DESC, id DESC);
DROP INDEX notifications_one_per_comment_idx;
ALTER TABLE notifications DROP COLUMN retracted_at;
