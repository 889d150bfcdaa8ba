import type { ContentSnapshot } from '@recipes/contracts';
import { type ListingRequest, type Position, type Queryable, readListing } from '@recipes/db';
import { type AuthorRow, type Stored, withIsoTimestamp } from './rows.js';

export interface NewRecipe {
  id: string;
  authorId: string;
  title: string;
  description: string;
  cameraModel: string;
  filmSimulation: string;
  coverImageUrl: string | null;
  imageUrls: string[];
}

/** A recipe that is not deleted, as one viewer sees it: its counts, their favorite and repost, its author. */
export interface RecipeSummary {
  id: string;
  title: string;
  description: string;
  coverImageUrl: string | null;
  cameraModel: string;
  filmSimulation: string;
  favoriteCount: number;
  commentCount: number;
  repostCount: number;
  isFavorited: boolean;
  isReposted: boolean;
  createdAt: string;
  author: AuthorRow;
}

// The summary's cover: the recipe's own, else its first image (lowest position), else null.
const cover = `coalesce(r.cover_image_url, (SELECT i.url FROM recipe_images i WHERE i.recipe_id = r.id ORDER BY i.position LIMIT 1))`;

// $1 is the viewer (null without a token; the author in an export): their favorite and repost are looked up in the same
// query.
export const summaryColumns = `
  r.id, r.title, r.description, ${cover} AS "coverImageUrl",
  r.camera_model AS "cameraModel", r.film_simulation AS "filmSimulation",
  r.favorite_count AS "favoriteCount", r.comment_count AS "commentCount", r.repost_count AS "repostCount",
  EXISTS (SELECT 1 FROM recipe_favorites f WHERE f.recipe_id = r.id AND f.user_id = $1::uuid) AS "isFavorited",
  EXISTS (SELECT 1 FROM recipe_reposts p WHERE p.recipe_id = r.id AND p.user_id = $1::uuid) AS "isReposted",
  r.created_at AS "createdAt",
  json_build_object('id', u.id, 'username', u.username, 'avatarUrl', u.avatar_url) AS author`;

const snapshotColumns = `
  r.id, r.author_id AS "authorId", r.title, ${cover} AS "coverImageUrl",
  r.deleted_at IS NOT NULL AS deleted, r.revision, r.created_at AS "createdAt"`;

export async function insertRecipe(db: Queryable, recipe: NewRecipe): Promise<void> {
  await db.query(
    `INSERT INTO recipes (id, author_id, title, description, camera_model, film_simulation, cover_image_url)
     VALUES ($1, $2, $3, $4, $5, $6, $7)`,
    [
      recipe.id,
      recipe.authorId,
      recipe.title,
      recipe.description,
      recipe.cameraModel,
      recipe.filmSimulation,
      recipe.coverImageUrl,
    ],
  );
  if (recipe.imageUrls.length === 0) return;
  await db.query(
    `INSERT INTO recipe_images (recipe_id, position, url)
     SELECT $1, image.ordinality - 1, image.url FROM unnest($2::text[]) WITH ORDINALITY AS image(url, ordinality)`,
    [recipe.id, recipe.imageUrls],
  );
}

export async function insertRecipeTags(db: Queryable, recipeId: string, userIds: string[]): Promise<void> {
  if (userIds.length === 0) return;
  await db.query('INSERT INTO recipe_tags (recipe_id, user_id) SELECT $1, unnest($2::uuid[])', [recipeId, userIds]);
}

/** A recipe that is not deleted, as `viewerId` sees it. */
export async function findRecipeSummary(
  db: Queryable,
  id: string,
  viewerId: string | null,
): Promise<RecipeSummary | undefined> {
  const { rows } = await db.query<Stored<RecipeSummary>>(
    `SELECT ${summaryColumns} FROM recipes r JOIN users u ON u.id = r.author_id WHERE r.id = $2 AND r.deleted_at IS NULL`,
    [viewerId, id],
  );
  return rows[0] && withIsoTimestamp(rows[0]);
}

/**
 * The recipes of `ids` that are not deleted, as `viewerId` sees them, in the order of `ids`: one statement, each
 * found by its primary key (`findRecipeSummary` for many).
 */
export async function findRecipeSummaries(
  db: Queryable,
  ids: string[],
  viewerId: string | null,
): Promise<RecipeSummary[]> {
  const { rows } = await db.query<Stored<RecipeSummary>>(
    `SELECT ${summaryColumns}
       FROM unnest($2::uuid[]) WITH ORDINALITY AS asked(id, position)
       JOIN recipes r ON r.id = asked.id JOIN users u ON u.id = r.author_id
      WHERE r.deleted_at IS NULL ORDER BY asked.position`,
    [viewerId, ids],
  );
  return rows.map(withIsoTimestamp);
}

/**
 * One page of an author's recipes, newest first, by number or after a position (a keyset seek on
 * `recipes_by_author`), and how many they have in all, both from `recipes_by_author` in one statement, so
 * the page and its total agree (`readListing`).
 */
export async function findAuthorRecipePage(
  db: Queryable,
  authorId: string,
  viewerId: string | null,
  request: ListingRequest,
): Promise<{ recipes: RecipeSummary[]; total: number; next: Position | null }> {
  const { rows, total, next } = await readListing<Stored<RecipeSummary>>(
    db,
    {
      count: 'SELECT count(*)::int AS total FROM recipes WHERE author_id = $2 AND deleted_at IS NULL',
      columns: summaryColumns,
      from: 'FROM recipes r JOIN users u ON u.id = r.author_id WHERE r.author_id = $2 AND r.deleted_at IS NULL',
      order: { at: 'r.created_at', id: 'r.id', idType: 'uuid', direction: 'desc' },
    },
    [viewerId, authorId],
    request,
  );
  return { recipes: rows.map(withIsoTimestamp), total, next };
}

/** What other services keep of a recipe, deleted or not. */
export async function findRecipeSnapshot(db: Queryable, id: string): Promise<ContentSnapshot | undefined> {
  const { rows } = await db.query<Stored<ContentSnapshot>>(`SELECT ${snapshotColumns} FROM recipes r WHERE r.id = $1`, [
    id,
  ]);
  return rows[0] && withIsoTimestamp(rows[0]);
}

/** The author of a recipe that is not deleted, its row locked until the transaction ends. */
export async function lockLiveRecipe(db: Queryable, id: string): Promise<{ authorId: string } | undefined> {
  const { rows } = await db.query<{ authorId: string }>(
    'SELECT author_id AS "authorId" FROM recipes WHERE id = $1 AND deleted_at IS NULL FOR UPDATE',
    [id],
  );
  return rows[0];
}

/**
 * Soft: the row stays for the events, counts and reactions, with no text (migrations/005): no title, description,
 * camera, film simulation, cover or images.
 */
export async function markRecipeDeleted(db: Queryable, id: string): Promise<void> {
  await db.query(
    `UPDATE recipes SET deleted_at = now(), revision = revision + 1,
            title = '', description = '', camera_model = '', film_simulation = '', cover_image_url = NULL
      WHERE id = $1`,
    [id],
  );
  await db.query('DELETE FROM recipe_images WHERE recipe_id = $1', [id]);
}
