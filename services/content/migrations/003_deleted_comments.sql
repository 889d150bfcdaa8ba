-- Up Migration

-- A deleted comment stays in recipe_comments, marked, so that its comment.created arriving after its
-- comment.deleted (events of one comment are not ordered) can never count it again.
ALTER TABLE recipe_comments ADD COLUMN deleted boolean NOT NULL DEFAULT false;

-- Down Migration
ALTER TABLE recipe_comments DROP COLUMN deleted;
