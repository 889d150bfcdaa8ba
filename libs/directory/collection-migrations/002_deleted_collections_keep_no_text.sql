-- Up Migration

-- A deleted collection keeps no owner or name here either (src/collection-directory.ts, docs/api.md §11.2): what
-- was recorded before that rule is emptied, and the check refuses a deleted collection that keeps its name.
UPDATE known_collections SET name = '' WHERE deleted AND name <> '';
ALTER TABLE known_collections ADD CONSTRAINT known_collections_deleted_keep_no_text CHECK (NOT deleted OR name = '');

-- Down Migration
ALTER TABLE known_collections DROP CONSTRAINT known_collections_deleted_keep_no_text;
