-- Up Migration

-- A deleted comment keeps no text (docs/api.md §11.2, docs/guarantees.md): its row stays for what the
-- events, the reply threads and the counts need (id, target, author, parent, times), not for its words, which
-- may name anyone (`@name`), and whoever deleted it (its author, its target's owner, its target's deletion, an
-- account's erasure). Every statement that deletes a comment empties it in the same write; this empties those
-- deleted before, and the check refuses a deleted comment that keeps a word, whatever statement writes it.
UPDATE comments SET content = '' WHERE deleted_at IS NOT NULL AND content <> '';
ALTER TABLE comments ADD CONSTRAINT comments_deleted_keep_no_text CHECK (deleted_at IS NULL OR content = '');

-- Down Migration
ALTER TABLE comments DROP CONSTRAINT comments_deleted_keep_no_text;
