-- Up Migration

-- One-level replies (docs/api.md §11.4): a reply names its top-level comment (a reply to a reply is
-- stored under the top level), and a top-level comment counts its live replies. The count is kept in the
-- statement that stores a reply and in the transaction that deletes one, each holding the top-level row's
-- lock, so it is exact however many reply or delete at once.
ALTER TABLE comments
  ADD COLUMN parent_id uuid REFERENCES comments,
  ADD COLUMN reply_count integer NOT NULL DEFAULT 0 CHECK (reply_count >= 0),
  -- The comment a reply answers, before it was moved to the top level: whose author it told.
  ADD COLUMN replied_to_id uuid REFERENCES comments;

-- A comment's replies, oldest first: one index range, as a target's page is.
CREATE INDEX comments_replies_idx ON comments (parent_id, created_at, id) WHERE deleted_at IS NULL AND parent_id IS NOT NULL;

-- A target's top-level comments (`topLevel=true`), and their count, without reading its replies.
CREATE INDEX comments_top_level_page_idx ON comments (target_type, target_id, created_at, id) WHERE deleted_at IS NULL AND parent_id IS NULL;

-- Down Migration
DROP INDEX comments_top_level_page_idx;
DROP INDEX comments_replies_idx;
ALTER TABLE comments DROP COLUMN replied_to_id, DROP COLUMN reply_count, DROP COLUMN parent_id;
