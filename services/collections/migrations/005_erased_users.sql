-- Up Migration

-- The deleted accounts erased from this schema (docs/api.md §11.2), by the SHA-256 of their id alone, so
-- that nothing here names who they were: an event about one of them that comes after the erasure (the
-- events of one user are not ordered across types) is recognised and dropped instead of bringing a part
-- of them back. Written and read by libs/runtime/src/erasure.ts.
CREATE TABLE erased_users (
  id_hash bytea PRIMARY KEY,
  erased_at timestamptz NOT NULL DEFAULT now()
);

-- Down Migration
DROP TABLE erased_users;
