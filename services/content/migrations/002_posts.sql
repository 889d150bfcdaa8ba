-- Up Migration
CREATE TABLE posts (
  id uuid PRIMARY KEY,
  author_id uuid NOT NULL,
  title text NOT NULL,
  cover_image_url text,
  revision integer NOT NULL DEFAULT 0,
  created_at timestamptz(3) NOT NULL DEFAULT now(),
  deleted_at timestamptz
);

CREATE TABLE post_tags (
  post_id uuid NOT NULL REFERENCES posts (id),
  user_id uuid NOT NULL,
  PRIMARY KEY (post_id, user_id)
);

-- Down Migration
DROP TABLE post_tags;
DROP TABLE posts;
