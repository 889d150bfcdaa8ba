-- Up Migration
CREATE TABLE recipes (
  id uuid PRIMARY KEY,
  author_id uuid NOT NULL,
  title text NOT NULL,
  description text NOT NULL,
  camera_model text NOT NULL,
  film_simulation text NOT NULL,
  -- The recipe's own cover; summaries fall back to its first image.
  cover_image_url text,
  -- Changed in the same transaction as the rows they count, so a page of recipes counts nothing.
  favorite_count integer NOT NULL DEFAULT 0,
  repost_count integer NOT NULL DEFAULT 0,
  comment_count integer NOT NULL DEFAULT 0,
  -- Grows with every change, so read models elsewhere can ignore stale events.
  revision integer NOT NULL DEFAULT 0,
  -- Milliseconds, as the API shows them: recipes that look simultaneous are ordered by id, as promised.
  created_at timestamptz(3) NOT NULL DEFAULT now(),
  deleted_at timestamptz
);

-- A user's recipes, newest first: page 1 reads a dozen entries however many recipes the table holds.
CREATE INDEX recipes_by_author ON recipes (author_id, created_at DESC, id DESC) WHERE deleted_at IS NULL;

CREATE TABLE recipe_images (
  recipe_id uuid NOT NULL REFERENCES recipes (id),
  position integer NOT NULL,
  url text NOT NULL,
  PRIMARY KEY (recipe_id, position)
);

CREATE TABLE recipe_favorites (
  recipe_id uuid NOT NULL REFERENCES recipes (id),
  user_id uuid NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (recipe_id, user_id)
);

CREATE TABLE recipe_reposts (
  recipe_id uuid NOT NULL REFERENCES recipes (id),
  user_id uuid NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (recipe_id, user_id)
);

CREATE TABLE recipe_tags (
  recipe_id uuid NOT NULL REFERENCES recipes (id),
  user_id uuid NOT NULL,
  PRIMARY KEY (recipe_id, user_id)
);

-- The comments counted in comment_count, by id: each counts once, however often its event comes.
CREATE TABLE recipe_comments (
  comment_id uuid PRIMARY KEY,
  recipe_id uuid NOT NULL
);

-- Down Migration
DROP TABLE recipe_comments;
DROP TABLE recipe_tags;
DROP TABLE recipe_reposts;
DROP TABLE recipe_favorites;
DROP TABLE recipe_images;
DROP TABLE recipes;
