-- Up Migration

-- Every user a comment has ever mentioned, across all its edits (a mention store keeps only the current
-- ones): the cap of 10 mentioned users holds for this set, and only a user new to it can be notified
-- (docs/api.md §5), so it is what an edit's mentions are counted against.
CREATE TABLE ever_mentioned (
  comment_id uuid NOT NULL REFERENCES comments,
  user_id uuid NOT NULL,
  PRIMARY KEY (comment_id, user_id)
);

-- Comments from before start with the users they mention now.
INSERT INTO ever_mentioned (comment_id, user_id)
  SELECT comment_id, mentioned_user_id FROM recipe_comment_mentions
  UNION SELECT comment_id, mentioned_user_id FROM collection_comment_mentions
  UNION SELECT comment_id, mentioned_user_id FROM post_comment_mentions;

-- Down Migration
DROP TABLE ever_mentioned;
