-- Up Migration

-- A post or recipe a user saved, at most once. `collection_count` is how many collections hold it, kept by
-- the triggers of 002: an item with none is "standalone", and the listings filter on that in an index.
CREATE TABLE saved_items (
  id uuid PRIMARY KEY,
  user_id uuid NOT NULL,
  content_type text NOT NULL CHECK (content_type IN ('recipe', 'post')),
  content_id uuid NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  collection_count integer NOT NULL DEFAULT 0 CHECK (collection_count >= 0),
  UNIQUE (user_id, content_type, content_id)
);

-- The user's listing, newest first, one index per filter so that every page is a short index range scan.
CREATE INDEX saved_items_listing_idx ON saved_items (user_id, created_at DESC, id DESC);
CREATE INDEX saved_items_standalone_idx ON saved_items (user_id, created_at DESC, id DESC) WHERE collection_count = 0;
CREATE INDEX saved_items_type_listing_idx ON saved_items (user_id, content_type, created_at DESC, id DESC);
CREATE INDEX saved_items_type_standalone_idx ON saved_items (user_id, content_type, created_at DESC, id DESC)
  WHERE collection_count = 0;
-- Deleted content takes its saved items with it (002).
CREATE INDEX saved_items_content_idx ON saved_items (content_id);

-- Deletion is soft: comments on a deleted collection give 404, so its row and revision stay.
CREATE TABLE collections (
  id uuid PRIMARY KEY,
  owner_id uuid NOT NULL,
  name text NOT NULL,
  description text NOT NULL,
  item_count integer NOT NULL DEFAULT 0 CHECK (item_count >= 0),
  deleted boolean NOT NULL DEFAULT false,
  -- Grows with every change, so the comments service can ignore stale events.
  revision integer NOT NULL DEFAULT 0,
  created_at timestamptz NOT NULL DEFAULT now()
);

CREATE INDEX collections_owner_idx ON collections (owner_id, created_at DESC, id DESC) WHERE NOT deleted;

-- A saved item may be in several collections; unsaving it takes it out of all of them.
CREATE TABLE collection_items (
  collection_id uuid NOT NULL REFERENCES collections (id),
  saved_item_id uuid NOT NULL REFERENCES saved_items (id) ON DELETE CASCADE,
  added_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (collection_id, saved_item_id)
);

CREATE INDEX collection_items_listing_idx ON collection_items (collection_id, added_at DESC, saved_item_id DESC);
CREATE INDEX collection_items_saved_item_idx ON collection_items (saved_item_id);

-- Down Migration
DROP TABLE collection_items;
DROP TABLE collections;
DROP TABLE saved_items;
