-- Up Migration

-- A deleted collection keeps no text (docs/api.md §11.2, docs/guarantees.md): its row stays for what the
-- events and the comments' 404 need (id, owner, revision, time), not for its name or description, which may
-- name anyone, whoever deleted it (its owner, or the erasure of their account). Deleting empties them in the
-- same write (src/repository/collections.ts); this empties those deleted before, and the check refuses a
-- deleted collection that keeps a word, whatever writes it.
UPDATE collections SET name = '', description = '' WHERE deleted AND (name <> '' OR description <> '');
ALTER TABLE collections ADD CONSTRAINT collections_deleted_keep_no_text CHECK (
  NOT deleted OR (name = '' AND description = ''));

-- Down Migration
ALTER TABLE collections DROP CONSTRAINT collections_deleted_keep_no_text;
