-- Up Migration

-- A new mention's comment.mention.created is now built in TypeScript and written with the mention, in the
-- same statement (`storingMentions`, src/mention-events.ts), as every other event is built: the trigger goes.
-- Taking a mention out is still announced by announce_mention_removal, since several statements delete
-- mentions (edits, deletions, erasure).
DROP TRIGGER announce_mention ON recipe_comment_mentions;
DROP TRIGGER announce_mention ON collection_comment_mentions;
DROP TRIGGER announce_mention ON post_comment_mentions;
DROP FUNCTION announce_mention();
COMMENT ON TRIGGER announce_mention_removal ON recipe_comment_mentions IS
  'A mention taken out, by whatever statement (an edit, a deletion, an erasure), retracts what storing it caused.';
COMMENT ON TRIGGER announce_mention_removal ON collection_comment_mentions IS
  'A mention taken out, by whatever statement (an edit, a deletion, an erasure), retracts what storing it caused.';
COMMENT ON TRIGGER announce_mention_removal ON post_comment_mentions IS
  'A mention taken out, by whatever statement (an edit, a deletion, an erasure), retracts what storing it caused.';

-- Down Migration
COMMENT ON TRIGGER announce_mention_removal ON recipe_comment_mentions IS
  'The other half of announce_mention: a mention taken out, by whatever statement, retracts what storing it caused.';
COMMENT ON TRIGGER announce_mention_removal ON collection_comment_mentions IS
  'The other half of announce_mention: a mention taken out, by whatever statement, retracts what storing it caused.';
COMMENT ON TRIGGER announce_mention_removal ON post_comment_mentions IS
  'The other half of announce_mention: a mention taken out, by whatever statement, retracts what storing it caused.';
CREATE FUNCTION announce_mention() RETURNS trigger LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
BEGIN
  PERFORM write_event('comment.mention.created', 1, NEW.created_at,
    mention_data(TG_ARGV[0], NEW.id, NEW.mentioned_user_id, NEW.comment_id, NEW.created_at));
  RETURN NULL;
END;
$$;
CREATE TRIGGER announce_mention AFTER INSERT ON recipe_comment_mentions
  FOR EACH ROW EXECUTE FUNCTION announce_mention('recipe_comment');
CREATE TRIGGER announce_mention AFTER INSERT ON collection_comment_mentions
  FOR EACH ROW EXECUTE FUNCTION announce_mention('collection_comment');
CREATE TRIGGER announce_mention AFTER INSERT ON post_comment_mentions
  FOR EACH ROW EXECUTE FUNCTION announce_mention('post_comment');
COMMENT ON TRIGGER announce_mention ON recipe_comment_mentions IS
  'The contract itself (docs/api.md §5): a stored mention is what notifies, whoever stores it, in the transaction that stores it.';
COMMENT ON TRIGGER announce_mention ON collection_comment_mentions IS
  'The contract itself (docs/api.md §5): a stored mention is what notifies, whoever stores it, in the transaction that stores it.';
COMMENT ON TRIGGER announce_mention ON post_comment_mentions IS
  'The contract itself (docs/api.md §5): a stored mention is what notifies, whoever stores it, in the transaction that stores it.';
