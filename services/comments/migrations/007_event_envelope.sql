-- Up Migration

-- The one place SQL names the transaction-local setting in which the app names the request behind a
-- transaction's events (`setCorrelationId`, src/repository.ts): set with set_correlation_id, read by
-- write_event.
CREATE FUNCTION correlation_setting() RETURNS text LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT 'comments.correlation_id'
$$;

CREATE FUNCTION set_correlation_id(correlation_id text) RETURNS text LANGUAGE sql VOLATILE SET search_path FROM CURRENT AS $$
  SELECT set_config(correlation_setting(), correlation_id, true)
$$;

-- The one place SQL builds an event envelope (libs/contracts/src/envelope.ts, as `createEvent` does in
-- TypeScript): writes `data` as an event of this service to the outbox, in the current transaction. Every
-- trigger that writes an event calls it. Pinned to this schema, whoever calls it.
CREATE FUNCTION write_event(event_type text, event_version integer, occurred_at timestamptz, data jsonb)
RETURNS void LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
DECLARE
  event_id uuid := uuid_v7();
BEGIN
  INSERT INTO outbox (id, type, payload) VALUES (event_id, event_type, jsonb_build_object(
    'id', event_id,
    'type', event_type,
    'version', event_version,
    'occurredAt', iso_timestamp(occurred_at),
    'producer', 'comments',
    -- An event written outside a request (by hand) starts a correlation of its own.
    'correlationId', coalesce(nullif(current_setting(correlation_setting(), true), ''), event_id::text),
    'data', data));
END;
$$;

-- What comment.mention.created and comment.mention.deleted both say of a mention (libs/contracts/src/events/comments.ts).
CREATE FUNCTION mention_data(kind text, mention_id uuid, mentioned_user_id uuid, comment_id uuid, created_at timestamptz)
RETURNS jsonb LANGUAGE plpgsql STABLE SET search_path FROM CURRENT AS $$
DECLARE
  comment comments;
BEGIN
  SELECT * INTO STRICT comment FROM comments WHERE id = comment_id;
  RETURN jsonb_build_object(
    'kind', kind,
    'mentionId', mention_id,
    'mentionedUserId', mentioned_user_id,
    'actorId', comment.author_id,
    'commentId', comment.id,
    'targetType', comment.target_type,
    'targetId', comment.target_id,
    'createdAt', iso_timestamp(created_at));
END;
$$;

-- The triggers of migrations 002 and 003, now through write_event: same events, same data.
CREATE OR REPLACE FUNCTION announce_mention() RETURNS trigger LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
BEGIN
  PERFORM write_event('comment.mention.created', 1, NEW.created_at,
    mention_data(TG_ARGV[0], NEW.id, NEW.mentioned_user_id, NEW.comment_id, NEW.created_at));
  RETURN NULL;
END;
$$;

CREATE OR REPLACE FUNCTION announce_mention_removal() RETURNS trigger LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
DECLARE
  removed_at timestamptz := date_trunc('milliseconds', now());
BEGIN
  PERFORM write_event('comment.mention.deleted', 1, removed_at,
    mention_data(TG_ARGV[0], OLD.id, OLD.mentioned_user_id, OLD.comment_id, OLD.created_at)
      || jsonb_build_object('deletedAt', iso_timestamp(removed_at)));
  RETURN NULL;
END;
$$;

-- Why each trigger of this schema is a trigger (the table in docs/architecture.md shows these).
COMMENT ON TRIGGER announce_mention ON recipe_comment_mentions IS
  'The contract itself (docs/api.md §5): a stored mention is what notifies, whoever stores it, in the transaction that stores it.';
COMMENT ON TRIGGER announce_mention ON collection_comment_mentions IS
  'The contract itself (docs/api.md §5): a stored mention is what notifies, whoever stores it, in the transaction that stores it.';
COMMENT ON TRIGGER announce_mention ON post_comment_mentions IS
  'The contract itself (docs/api.md §5): a stored mention is what notifies, whoever stores it, in the transaction that stores it.';
COMMENT ON TRIGGER announce_mention_removal ON recipe_comment_mentions IS
  'The other half of announce_mention: a mention taken out, by whatever statement, retracts what storing it caused.';
COMMENT ON TRIGGER announce_mention_removal ON collection_comment_mentions IS
  'The other half of announce_mention: a mention taken out, by whatever statement, retracts what storing it caused.';
COMMENT ON TRIGGER announce_mention_removal ON post_comment_mentions IS
  'The other half of announce_mention: a mention taken out, by whatever statement, retracts what storing it caused.';

-- Down Migration
COMMENT ON TRIGGER announce_mention_removal ON post_comment_mentions IS NULL;
COMMENT ON TRIGGER announce_mention_removal ON collection_comment_mentions IS NULL;
COMMENT ON TRIGGER announce_mention_removal ON recipe_comment_mentions IS NULL;
COMMENT ON TRIGGER announce_mention ON post_comment_mentions IS NULL;
COMMENT ON TRIGGER announce_mention ON collection_comment_mentions IS NULL;
COMMENT ON TRIGGER announce_mention ON recipe_comment_mentions IS NULL;
CREATE OR REPLACE FUNCTION announce_mention_removal() RETURNS trigger LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
DECLARE
  event_id uuid := uuid_v7();
  comment comments;
  removed_at timestamptz := date_trunc('milliseconds', now());
BEGIN
  SELECT * INTO STRICT comment FROM comments WHERE id = OLD.comment_id;
  INSERT INTO outbox (id, type, payload) VALUES (event_id, 'comment.mention.deleted', jsonb_build_object(
    'id', event_id, 'type', 'comment.mention.deleted', 'version', 1, 'occurredAt', iso_timestamp(removed_at),
    'producer', 'comments',
    'correlationId', coalesce(nullif(current_setting('comments.correlation_id', true), ''), event_id::text),
    'data', jsonb_build_object('kind', TG_ARGV[0], 'mentionId', OLD.id, 'mentionedUserId', OLD.mentioned_user_id,
      'actorId', comment.author_id, 'commentId', comment.id, 'targetType', comment.target_type,
      'targetId', comment.target_id, 'createdAt', iso_timestamp(OLD.created_at), 'deletedAt', iso_timestamp(removed_at))));
  RETURN NULL;
END;
$$;
CREATE OR REPLACE FUNCTION announce_mention() RETURNS trigger LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
DECLARE
  event_id uuid := uuid_v7();
  comment comments;
BEGIN
  SELECT * INTO STRICT comment FROM comments WHERE id = NEW.comment_id;
  INSERT INTO outbox (id, type, payload) VALUES (event_id, 'comment.mention.created', jsonb_build_object(
    'id', event_id, 'type', 'comment.mention.created', 'version', 1, 'occurredAt', iso_timestamp(NEW.created_at),
    'producer', 'comments',
    'correlationId', coalesce(nullif(current_setting('comments.correlation_id', true), ''), event_id::text),
    'data', jsonb_build_object('kind', TG_ARGV[0], 'mentionId', NEW.id, 'mentionedUserId', NEW.mentioned_user_id,
      'actorId', comment.author_id, 'commentId', comment.id, 'targetType', comment.target_type,
      'targetId', comment.target_id, 'createdAt', iso_timestamp(NEW.created_at))));
  RETURN NULL;
END;
$$;
DROP FUNCTION mention_data(text, uuid, uuid, uuid, timestamptz);
DROP FUNCTION write_event(text, integer, timestamptz, jsonb);
DROP FUNCTION set_correlation_id(text);
DROP FUNCTION correlation_setting();
