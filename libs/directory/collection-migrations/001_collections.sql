-- Up Migration

-- What this service knows of collections: whether one exists and can be commented on. Fed by the
-- collections service's events; `revision` orders them.
CREATE TABLE known_collections (
  id uuid PRIMARY KEY,
  owner_id uuid NOT NULL,
  name text NOT NULL,
  deleted boolean NOT NULL,
  revision integer NOT NULL,
  created_at timestamptz NOT NULL
);

-- Down Migration
DROP TABLE known_collections;
