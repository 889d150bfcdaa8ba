// The comments service's reads (services/comments/src/routes/comments.ts), on its pool.
import {
  author,
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
  UUID,
  withListLinks,
} from './common.mjs';

// The target check on the read models of contents (libs/directory/src/content-directory.ts `find`) and
// collections (collection-directory.ts `find`); repository.ts `findCommentPage`.
const findTarget = statement(
  'find-target',
  `SELECT id, content_type AS "contentType", author_id AS "authorId", title, cover_image_url AS "coverImageUrl",
              deleted, revision, to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS "createdAt"
         FROM content_items WHERE id = $1 AND content_type = $2`,
);
const findCollection = statement(
  'find-collection',
  `SELECT id, owner_id AS "ownerId", name, deleted, revision,
              to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS "createdAt"
         FROM known_collections WHERE id = $1`,
);
const findCommentPage = listingStatement(
  'find-comment-page',
  {
    count:
      'SELECT count(*)::int AS total FROM comments WHERE target_type = $1 AND target_id = $2 AND deleted_at IS NULL',
    columns: `c.id, c.author_id AS "authorId", c.content, iso_timestamp(c.created_at) AS "createdAt",
              iso_timestamp(c.edited_at) AS "editedAt", u.username, u.avatar_url AS "avatarUrl"`,
    from: `FROM comments c LEFT JOIN users u ON u.id = c.author_id
          WHERE c.target_type = $1 AND c.target_id = $2 AND c.deleted_at IS NULL`,
    order: { at: 'c.created_at', id: 'c.id', direction: 'asc' },
  },
  2,
);

const comment = object({ id: string, content: string, createdAt: string, editedAt: nullableString, author });
const commentList = object({
  comments: { type: 'array', items: comment },
  total: integer,
  pagination: listPaginationSchema,
});

export function registerComments(app, pool) {
  for (const [type, plural, name] of [
    ['recipe', 'recipes', 'Recipe'],
    ['post', 'posts', 'Post'],
    ['collection', 'collections', 'Collection'],
  ]) {
    // GET /api/{recipes,posts,collections}/:id/comments — comments.ts `list`: the target check (targets.ts;
    // one the read model lacks the service would ask its owner about, the seeded bench has them all), then
    // the page with its authors joined and the count in one statement.
    app.get(
      `/api/${plural}/:id/comments`,
      { schema: { querystring: pageQuery, response: { 200: commentList, 404: problem } } },
      async (request, reply) => {
        const { id } = request.params;
        const page = pageOf(request.query, 50);
        const find = type === 'collection' ? findCollection(id) : findTarget(id, type);
        const target = UUID.test(id) ? (await pool.query(find)).rows[0] : undefined;
        if (!target || target.deleted) return sendProblem(reply, 404, `${name} not found`);
        const { rows, total, next } = listingRows(
          await pool.query(findCommentPage(type, id, page.limit + 1, page.offset)),
          page.limit,
        );
        // Every author is in the read model (the bench seeds them all): the service's look-up of the others is not
        // reached.
        const comments = rows.map((r) => {
          if (r.username === null) throw new Error(`author ${r.authorId} of comment ${r.id} is unknown`);
          return {
            id: r.id,
            content: r.content,
            createdAt: r.createdAt,
            editedAt: r.editedAt,
            author: { id: r.authorId, username: r.username, avatarUrl: r.avatarUrl },
          };
        });
        return withListLinks(request, reply, {
          comments,
          total,
          pagination: listPagination(page, total, next, 'comments'),
        });
      },
    );
  }
}
