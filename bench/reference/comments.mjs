// The comments service's reads (services/comments/src/routes/comments.ts, routes/comments/index.ts), on its pool.
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
// repository.ts `findComment`, the check that the replies' comment is live.
const findComment = statement(
  'find-comment',
  `SELECT id, author_id AS "authorId", content, iso_timestamp(created_at) AS "createdAt", iso_timestamp(edited_at) AS "editedAt",
          parent_id AS "parentId", reply_count AS "replyCount" FROM comments WHERE id = $1 AND deleted_at IS NULL`,
);

// repository.ts `listedColumns`: a comment as the API shows it, its author's name and avatar from the read model.
const listedColumns = `c.id, c.author_id AS "authorId", c.content, iso_timestamp(c.created_at) AS "createdAt",
                iso_timestamp(c.edited_at) AS "editedAt", c.target_type AS "targetType", c.target_id AS "targetId",
                c.parent_id AS "parentId", c.reply_count AS "replyCount", u.username, u.avatar_url AS "avatarUrl"`;
// repository.ts `findListedComment`, a comment read by its id.
const findListedComment = statement(
  'find-listed-comment',
  `SELECT ${listedColumns} FROM comments c LEFT JOIN users u ON u.id = c.author_id
      WHERE c.id = $1 AND c.deleted_at IS NULL`,
);

/** repository.ts `readComments`: a listing of the comments `where` keeps, with their authors joined. */
const commentListing = (name, where, parameters) =>
  listingStatement(
    name,
    {
      count: `SELECT count(*)::int AS total FROM comments WHERE ${where('')}`,
      columns: listedColumns,
      from: `FROM comments c LEFT JOIN users u ON u.id = c.author_id WHERE ${where('c.')}`,
      order: { at: 'c.created_at', id: 'c.id', direction: 'asc' },
    },
    parameters,
  );
// `findCommentPage`, of every comment or (`topLevel=true`) the top-level ones only, the filter written into the SQL.
const onTarget = (topLevelOnly) => (c) =>
  `${c}target_type = $1 AND ${c}target_id = $2 AND ${c}deleted_at IS NULL${topLevelOnly ? ` AND ${c}parent_id IS NULL` : ''}`;
const findCommentPage = {
  all: commentListing('find-comment-page', onTarget(false), 2),
  topLevel: commentListing('find-comment-page-top-level', onTarget(true), 2),
};
// `findReplyPage`.
const findReplyPage = commentListing('find-reply-page', (c) => `${c}parent_id = $1 AND ${c}deleted_at IS NULL`, 1);

const comment = object({
  id: string,
  content: string,
  createdAt: string,
  editedAt: nullableString,
  targetType: string,
  targetId: string,
  parentId: nullableString,
  replyCount: integer,
  author,
});
const comments = { type: 'array', items: comment };
const commentList = object({ comments, total: integer, pagination: listPaginationSchema });
const replyList = object({ comments, pagination: listPaginationSchema });

/**
 * comments.ts `withAuthors` of a page's rows. Every author is in the read model (the bench seeds them all): the
 * service's look-up of the others is not reached.
 */
const withAuthors = (rows) =>
  rows.map(({ authorId, username, avatarUrl, ...record }) => {
    if (username === null) throw new Error(`author ${authorId} of comment ${record.id} is unknown`);
    return { ...record, author: { id: authorId, username, avatarUrl } };
  });

/** targets.ts: the target exists and is not deleted, as the read models of contents and collections have it. */
async function liveTarget(pool, type, id) {
  const target = (await pool.query(type === 'collection' ? findCollection(id) : findTarget(id, type))).rows[0];
  return target !== undefined && !target.deleted;
}

export function registerComments(app, pool) {
  for (const [type, plural, name] of [
    ['recipe', 'recipes', 'Recipe'],
    ['post', 'posts', 'Post'],
    ['collection', 'collections', 'Collection'],
  ]) {
    // GET /api/{recipes,posts,collections}/:id/comments — comments.ts `list`: the target check (targets.ts;
    // one the read model lacks the service would ask its owner about, the seeded bench has them all), then
    // the page (of the top-level comments alone with `topLevel=true`, any other value keeping all) with its
    // authors joined and the count in one statement.
    app.get(
      `/api/${plural}/:id/comments`,
      { schema: { querystring: pageQuery, response: { 200: commentList, 404: problem } } },
      async (request, reply) => {
        const { id } = request.params;
        const page = pageOf(request.query, 50);
        if (!UUID.test(id) || !(await liveTarget(pool, type, id))) return sendProblem(reply, 404, `${name} not found`);
        const listing = findCommentPage[request.query.topLevel === 'true' ? 'topLevel' : 'all'];
        const { rows, total, next } = listingRows(
          await pool.query(listing(type, id, page.limit + 1, page.offset)),
          page.limit,
        );
        return withListLinks(request, reply, {
          comments: withAuthors(rows),
          total,
          pagination: listPagination(page, total, next, 'comments'),
        });
      },
    );
  }

  // GET /api/comments/:id — comments.ts `find`: the live comment by its id with its author joined
  // (`findListedComment`), then the check that its target is live, as its list would make.
  app.get(
    '/api/comments/:id',
    { schema: { response: { 200: object({ comment }), 404: problem } } },
    async (request, reply) => {
      const { id } = request.params;
      const found = UUID.test(id) ? (await pool.query(findListedComment(id))).rows[0] : undefined;
      if (!found || !(await liveTarget(pool, found.targetType, found.targetId)))
        return sendProblem(reply, 404, 'Comment not found');
      return { comment: withAuthors([found])[0] };
    },
  );

  // GET /api/comments/:id/replies — comments.ts `replies`: the comment must be live (`findComment`), then the
  // page of its replies with their authors joined and the count in one statement; no `total` beside the pagination.
  app.get(
    '/api/comments/:id/replies',
    { schema: { querystring: pageQuery, response: { 200: replyList, 404: problem } } },
    async (request, reply) => {
      const { id } = request.params;
      const page = pageOf(request.query, 20);
      if (!UUID.test(id) || !(await pool.query(findComment(id))).rows[0]) {
        return sendProblem(reply, 404, 'Comment not found');
      }
      const { rows, total, next } = listingRows(
        await pool.query(findReplyPage(id, page.limit + 1, page.offset)),
        page.limit,
      );
      return withListLinks(request, reply, {
        comments: withAuthors(rows),
        pagination: listPagination(page, total, next, 'replies'),
      });
    },
  );
}
