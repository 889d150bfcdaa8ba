-- Up Migration

-- A deleted recipe or post keeps no author, title or cover here either (src/content-directory.ts,
-- docs/api.md §11.2): what was recorded before that rule is emptied, and the check refuses a deleted item
-- that keeps a word.
UPDATE content_items SET title = '', cover_image_url = NULL WHERE deleted AND (title <> '' OR cover_image_url IS NOT NULL);
ALTER TABLE content_items ADD CONSTRAINT content_items_deleted_keep_no_text CHECK (
  NOT deleted OR (title = '' AND cover_image_url IS NULL));

-- Down Migration
ALTER TABLE content_items DROP CONSTRAINT content_items_deleted_keep_no_text;
