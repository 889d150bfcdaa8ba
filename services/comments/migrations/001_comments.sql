-- Up Migration

-- Comments on recipes, collections and posts alike: a target's page, oldest first, is one index range.
CREATE TABLE comments (
  id uuid PRIMARY KEY,
  target_type text NOT NULL CHECK (target_type IN ('recipe', 'collection', 'post')),
  target_id uuid NOT NULL,
  author_id uuid NOT NULL,
  content text NOT NULL,
  -- To the millisecond, as the API shows it: comments that look simultaneous are then ordered by id.
  created_at timestamptz NOT NULL DEFAULT date_trunc('milliseconds', now())
);

CREATE INDEX comments_page_idx ON comments (target_type, target_id, created_at, id);

-- Timestamps as the API and the events write them: ISO 8601, UTC, milliseconds.
CREATE FUNCTION iso_timestamp(moment timestamptz) RETURNS text LANGUAGE sql STABLE PARALLEL SAFE AS $$
  SELECT to_char(moment AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')
$$;

-- Down Migration
DROP FUNCTION iso_timestamp(timestamptz);
DROP TABLE comments;
