// The content service's reads (services/content/src/routes/{recipes,posts,users}/index.ts), on its pool.
import {
  author,
  boolean,
  idParams,
  integer,
  listingRows,
  listingStatement,
  listPagination,
  listPaginationSchema,
  nullableString,
  object,
  pageOf,
  pageQuery,
  problem,
  sendProblem,
  statement,
  string,
  usersByIds,
  UUID,
  withListLinks,
} from './common.mjs';

// repository/recipes.ts, as written there: the cover, and the columns of a summary ($1 the viewer or null).
const cover = `coalesce(r.cover_image_url, (SELECT i.url FROM recipe_images i WHERE i.recipe_id = r.id ORDER BY i.position LIMIT 1))`;
const summaryColumns = `
  r.id, r.title, r.description, ${cover} AS "coverImageUrl",
  r.camera_model AS "cameraModel", r.film_simulation AS "filmSimulation",
  r.favorite_count AS "favoriteCount", r.comment_count AS "commentCount", r.repost_count AS "repostCount",
  EXISTS (SELECT 1 FROM recipe_favorites f WHERE f.recipe_id = r.id AND f.user_id = $1::uuid) AS "isFavorited",
  EXISTS (SELECT 1 FROM recipe_reposts p WHERE p.recipe_id = r.id AND p.user_id = $1::uuid) AS "isReposted",
  r.created_at AS "createdAt",
  json_build_object('id', u.id, 'username', u.username, 'avatarUrl', u.avatar_url) AS author`;
const findRecipeSummary = statement(
  'find-recipe-summary',
  `SELECT ${summaryColumns} FROM recipes r JOIN users u ON u.id = r.author_id WHERE r.id = $2 AND r.deleted_at IS NULL`,
);
const findAuthorRecipePage = listingStatement(
  'find-author-recipe-page',
  {
    count: 'SELECT count(*)::int AS total FROM recipes WHERE author_id = $2 AND deleted_at IS NULL',
    columns: summaryColumns,
    from: 'FROM recipes r JOIN users u ON u.id = r.author_id WHERE r.author_id = $2 AND r.deleted_at IS NULL',
    order: { at: 'r.created_at', id: 'r.id', direction: 'desc' },
  },
  2,
);
// `findRecipeSummaries`: the recipes of the ids ($2), in their order.
const findRecipeSummaries = statement(
  'find-recipe-summaries',
  `SELECT ${summaryColumns}
       FROM unnest($2::uuid[]) WITH ORDINALITY AS asked(id, position)
       JOIN recipes r ON r.id = asked.id JOIN users u ON u.id = r.author_id
      WHERE r.deleted_at IS NULL ORDER BY asked.position`,
);
// repository/posts.ts `findPost`, and `findPosts` of the ids ($1) in their order.
const postColumns = `p.id, p.title, p.cover_image_url AS "coverImageUrl", p.created_at AS "createdAt",
            json_build_object('id', u.id, 'username', u.username, 'avatarUrl', u.avatar_url) AS author`;
const findPost = statement(
  'find-post',
  `SELECT ${postColumns}
       FROM posts p JOIN users u ON u.id = p.author_id
      WHERE p.id = $1 AND p.deleted_at IS NULL`,
);
const findPosts = statement(
  'find-posts',
  `SELECT ${postColumns}
       FROM unnest($1::uuid[]) WITH ORDINALITY AS asked(id, position)
       JOIN posts p ON p.id = asked.id JOIN users u ON u.id = p.author_id
      WHERE p.deleted_at IS NULL ORDER BY asked.position`,
);

/** schemas.ts `idsQuery`: 1-50 UUIDs, comma-separated or repeated; each once, where first asked. Undefined if not. */
function idsOf({ ids }) {
  const asked = [ids ?? []].flat().flatMap((list) => String(list).split(','));
  if (asked.length === 0 || asked.length > 50 || !asked.every((id) => UUID.test(id))) return undefined;
  return [...new Set(asked.map((id) => id.toLowerCase()))];
}

/** repository/rows.ts `withIsoTimestamp`: pg gives a Date. */
const withIsoTimestamp = (row) => ({ ...row, createdAt: row.createdAt.toISOString() });

const recipeSummary = object({
  id: string,
  title: string,
  description: string,
  coverImageUrl: nullableString,
  cameraModel: string,
  filmSimulation: string,
  favoriteCount: integer,
  commentCount: integer,
  repostCount: integer,
  isFavorited: boolean,
  isReposted: boolean,
  createdAt: string,
  author,
});
const post = object({ id: string, title: string, coverImageUrl: nullableString, author, createdAt: string });

export function registerContent(app, pool) {
  // GET /api/recipes?ids= — recipes.ts `findMany` as the caller (if any) sees them: `findRecipeSummaries`.
  app.get(
    '/api/recipes',
    { schema: { response: { 200: object({ recipes: { type: 'array', items: recipeSummary } }) } } },
    async (request, reply) => {
      const ids = idsOf(request.query);
      if (!ids) return sendProblem(reply, 400, 'The request is not valid');
      const { rows } = await pool.query(findRecipeSummaries(request.caller?.id ?? null, ids));
      return { recipes: rows.map(withIsoTimestamp) };
    },
  );

  // GET /api/posts?ids= — posts.ts `findMany`: `findPosts`.
  app.get(
    '/api/posts',
    { schema: { response: { 200: object({ posts: { type: 'array', items: post } }) } } },
    async (request, reply) => {
      const ids = idsOf(request.query);
      if (!ids) return sendProblem(reply, 400, 'The request is not valid');
      return { posts: (await pool.query(findPosts(ids))).rows.map(withIsoTimestamp) };
    },
  );

  // GET /api/recipes/:id — recipes.ts `find` as the caller (if any) sees it: repository `findRecipeSummary`.
  app.get(
    '/api/recipes/:id',
    { schema: { params: idParams, response: { 200: object({ recipe: recipeSummary }), 404: problem } } },
    async (request, reply) => {
      const recipe = (await pool.query(findRecipeSummary(request.caller?.id ?? null, request.params.id))).rows[0];
      return recipe ? { recipe: withIsoTimestamp(recipe) } : sendProblem(reply, 404, 'Recipe not found');
    },
  );

  // GET /api/posts/:id — posts.ts `find`: repository `findPost`.
  app.get(
    '/api/posts/:id',
    { schema: { params: idParams, response: { 200: object({ post }), 404: problem } } },
    async (request, reply) => {
      const found = (await pool.query(findPost(request.params.id))).rows[0];
      return found ? { post: withIsoTimestamp(found) } : sendProblem(reply, 404, 'Post not found');
    },
  );

  // GET /api/users/:id/recipes — recipes.ts `listByAuthor`: the author from the users read model
  // (people.ts `findUser`; the bench names them by id, so the by-username look-up is left out), then the
  // page and its count in one statement (`findAuthorRecipePage`), as the caller sees them.
  app.get(
    '/api/users/:id/recipes',
    {
      schema: {
        querystring: pageQuery,
        response: {
          200: object({ recipes: { type: 'array', items: recipeSummary }, pagination: listPaginationSchema }),
          404: problem,
        },
      },
    },
    async (request, reply) => {
      const page = pageOf(request.query, 12);
      if (!UUID.test(request.params.id)) return sendProblem(reply, 404, 'User not found');
      const authorId = (await usersByIds(pool, [request.params.id])).get(request.params.id).id;
      const { rows, total, next } = listingRows(
        await pool.query(findAuthorRecipePage(request.caller?.id ?? null, authorId, page.limit + 1, page.offset)),
        page.limit,
      );
      return withListLinks(request, reply, {
        recipes: rows.map(withIsoTimestamp),
        pagination: listPagination(page, total, next, 'recipes'),
      });
    },
  );
}
