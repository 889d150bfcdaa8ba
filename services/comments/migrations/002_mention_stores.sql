-- Up Migration

-- A time-ordered (v7) UUID like the app's: 48 bits of Unix milliseconds over a random v4, version set to 7.
CREATE FUNCTION uuid_v7() RETURNS uuid LANGUAGE sql VOLATILE AS $$
  SELECT encode(
    set_bit(set_bit(
      overlay(uuid_send(gen_random_uuid())
              PLACING substring(int8send(floor(extract(epoch FROM clock_timestamp()) * 1000)::bigint) FROM 3)
              FROM 1 FOR 6),
      52, 1), 53, 1),
    'hex')::uuid
$$;

-- The three mention stores, one per kind of comment (docs/api.md §5): a row per user mentioned.
CREATE TABLE recipe_comment_mentions (
  id uuid PRIMARY KEY DEFAULT uuid_v7(),
  comment_id uuid NOT NULL REFERENCES comments,
  mentioned_user_id uuid NOT NULL,
  created_at timestamptz NOT NULL DEFAULT date_trunc('milliseconds', now()),
  UNIQUE (comment_id, mentioned_user_id)
);

CREATE TABLE collection_comment_mentions (
  id uuid PRIMARY KEY DEFAULT uuid_v7(),
  comment_id uuid NOT NULL REFERENCES comments,
  mentioned_user_id uuid NOT NULL,
  created_at timestamptz NOT NULL DEFAULT date_trunc('milliseconds', now()),
  UNIQUE (comment_id, mentioned_user_id)
);

CREATE TABLE post_comment_mentions (
  id uuid PRIMARY KEY DEFAULT uuid_v7(),
  comment_id uuid NOT NULL REFERENCES comments,
  mentioned_user_id uuid NOT NULL,
  created_at timestamptz NOT NULL DEFAULT date_trunc('milliseconds', now()),
  UNIQUE (comment_id, mentioned_user_id)
);

-- Storing a mention is what notifies (by trigger, docs/architecture.md §5): each row writes its
-- `comment.mention.created` envelope (libs/contracts) to the outbox, in the transaction that stores it.
-- The store's kind is the trigger's argument; the app names the request behind it in the
-- transaction-local setting `comments.correlation_id`. Pinned to this schema, whoever inserts.
CREATE FUNCTION announce_mention() RETURNS trigger LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
DECLARE
  event_id uuid := uuid_v7();
  comment comments;
BEGIN
  SELECT * INTO STRICT comment FROM comments WHERE id = NEW.comment_id;
  INSERT INTO outbox (id, type, payload) VALUES (event_id, 'comment.mention.created', jsonb_build_object(
    'id', event_id,
    'type', 'comment.mention.created',
    'version', 1,
    'occurredAt', iso_timestamp(NEW.created_at),
    'producer', 'comments',
    -- A mention stored outside a request (by hand) starts a correlation of its own.
    'correlationId', coalesce(nullif(current_setting('comments.correlation_id', true), ''), event_id::text),
    'data', jsonb_build_object(
      'kind', TG_ARGV[0],
      'mentionId', NEW.id,
      'mentionedUserId', NEW.mentioned_user_id,
      'actorId', comment.author_id,
      'commentId', comment.id,
      'targetType', comment.target_type,
      'targetId', comment.target_id,
      'createdAt', iso_timestamp(NEW.created_at))));
  RETURN NULL;
END;
$$;

CREATE TRIGGER announce_mention AFTER INSERT ON recipe_comment_mentions
  FOR EACH ROW EXECUTE FUNCTION announce_mention('recipe_comment');
CREATE TRIGGER announce_mention AFTER INSERT ON collection_comment_mentions
  FOR EACH ROW EXECUTE FUNCTION announce_mention('collection_comment');
CREATE TRIGGER announce_mention AFTER INSERT ON post_comment_mentions
  FOR EACH ROW EXECUTE FUNCTION announce_mention('post_comment');

-- Down Migration
DROP TABLE post_comment_mentions;
DROP TABLE collection_comment_mentions;
DROP TABLE recipe_comment_mentions;
DROP FUNCTION announce_mention();
DROP FUNCTION uuid_v7();
