-- Up Migration

-- Edited and deleted comments. A deleted comment stays, for the events already about it, but leaves
-- every listing: the page index covers live comments only.
ALTER TABLE comments
  ADD COLUMN edited_at timestamptz,
  ADD COLUMN deleted_at timestamptz;
DROP INDEX comments_page_idx;
CREATE INDEX comments_page_idx ON comments (target_type, target_id, created_at, id) WHERE deleted_at IS NULL;

-- A mention taken out of a comment (by an edit, or with the comment) retracts what its storing caused:
-- each removed row writes its `comment.mention.deleted` envelope to the outbox, in the transaction that
-- removes it, as announce_mention does for a stored one.
CREATE FUNCTION announce_mention_removal() RETURNS trigger LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
DECLARE
  event_id uuid := uuid_v7();
  comment comments;
  removed_at timestamptz := date_trunc('milliseconds', now());
BEGIN
  SELECT * INTO STRICT comment FROM comments WHERE id = OLD.comment_id;
  INSERT INTO outbox (id, type, payload) VALUES (event_id, 'comment.mention.deleted', jsonb_build_object(
    'id', event_id,
    'type', 'comment.mention.deleted',
    'version', 1,
    'occurredAt', iso_timestamp(removed_at),
    'producer', 'comments',
    'correlationId', coalesce(nullif(current_setting('comments.correlation_id', true), ''), event_id::text),
    'data', jsonb_build_object(
      'kind', TG_ARGV[0],
      'mentionId', OLD.id,
      'mentionedUserId', OLD.mentioned_user_id,
      'actorId', comment.author_id,
      'commentId', comment.id,
      'targetType', comment.target_type,
      'targetId', comment.target_id,
      'createdAt', iso_timestamp(OLD.created_at),
      'deletedAt', iso_timestamp(removed_at))));
  RETURN NULL;
END;
$$;

CREATE TRIGGER announce_mention_removal AFTER DELETE ON recipe_comment_mentions
  FOR EACH ROW EXECUTE FUNCTION announce_mention_removal('recipe_comment');
CREATE TRIGGER announce_mention_removal AFTER DELETE ON collection_comment_mentions
  FOR EACH ROW EXECUTE FUNCTION announce_mention_removal('collection_comment');
CREATE TRIGGER announce_mention_removal AFTER DELETE ON post_comment_mentions
  FOR EACH ROW EXECUTE FUNCTION announce_mention_removal('post_comment');

-- Down Migration
DROP TRIGGER announce_mention_removal ON post_comment_mentions;
DROP TRIGGER announce_mention_removal ON collection_comment_mentions;
DROP TRIGGER announce_mention_removal ON recipe_comment_mentions;
DROP FUNCTION announce_mention_removal();
DROP INDEX comments_page_idx;
CREATE INDEX comments_page_idx ON comments (target_type, target_id, created_at, id);
ALTER TABLE comments DROP COLUMN deleted_at, DROP COLUMN edited_at;
