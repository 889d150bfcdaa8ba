-- Up Migration

-- What this service knows of recipes and posts: enough to list a saved item and to know whether content
-- can still be commented on. Fed by the content service's events; `revision` orders them.
CREATE TABLE content_items (
  id uuid PRIMARY KEY,
  content_type text NOT NULL CHECK (content_type IN ('recipe', 'post')),
  author_id uuid NOT NULL,
  title text NOT NULL,
  cover_image_url text,
  deleted boolean NOT NULL,
  revision integer NOT NULL,
  created_at timestamptz NOT NULL
);

-- Down Migration
DROP TABLE content_items;
