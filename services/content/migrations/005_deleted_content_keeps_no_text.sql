-- Up Migration

-- A deleted recipe or post keeps no text (docs/api.md §11.2, docs/guarantees.md): its row stays for what the
-- events, the counts and the reactions need (id, author, revision, times), not for its title, description,
-- camera, film simulation, cover or images, which may name anyone, whoever deleted it (its author, or the
-- erasure of their account). Deleting empties them in the same write (src/repository/recipes.ts, posts.ts); this
-- empties those deleted before, and the checks refuse a deleted row that keeps a word, whatever writes it.
UPDATE recipes SET title = '', description = '', camera_model = '', film_simulation = '', cover_image_url = NULL
 WHERE deleted_at IS NOT NULL
   AND (title <> '' OR description <> '' OR camera_model <> '' OR film_simulation <> '' OR cover_image_url IS NOT NULL);
DELETE FROM recipe_images i USING recipes r WHERE r.id = i.recipe_id AND r.deleted_at IS NOT NULL;
UPDATE posts SET title = '', cover_image_url = NULL
 WHERE deleted_at IS NOT NULL AND (title <> '' OR cover_image_url IS NOT NULL);

ALTER TABLE recipes ADD CONSTRAINT recipes_deleted_keep_no_text CHECK (
  deleted_at IS NULL
  OR (title = '' AND description = '' AND camera_model = '' AND film_simulation = '' AND cover_image_url IS NULL));
ALTER TABLE posts ADD CONSTRAINT posts_deleted_keep_no_text CHECK (
  deleted_at IS NULL OR (title = '' AND cover_image_url IS NULL));

-- Down Migration
ALTER TABLE posts DROP CONSTRAINT posts_deleted_keep_no_text;
ALTER TABLE recipes DROP CONSTRAINT recipes_deleted_keep_no_text;
