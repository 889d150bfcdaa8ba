// The same work as a public read, in plain Fastify: the same SQL on the same seeded tables, responses
// serialised from a JSON schema (Fastify's compiled serializer), no per-request logging. Its own process,
// spawned by bench/reference-phase.mjs beside the system: PORT and DATABASE_URL from the environment.
//
// The public reads answered so far (bench/reference-phase.mjs REFERENCED lists them), each after the
// handler it copies.
//
// GET /api/{recipes,posts,collections}/:id/comments?page&limit — what the comments service runs for
// them (services/comments/src/comments.ts `list`): the target check on its read model of contents
// (libs/directory/src/content-directory.ts `find`) or collections (collection-directory.ts `find`),
// then the page with its authors joined (repository.ts `findComments`) and the count (`countComments`) at once.
import Fastify from 'fastify';
import pg from 'pg';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const MAX_PAGE_SIZE = 100;

// The service's pool: 10 connections, its schema as search path, named (prepared) statements.
const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 10, options: '-c search_path=comments', application_name: 'bench-reference' });
pool.on('error', () => undefined);
// The users service's, for GET /api/users/:id.
const usersPool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 10, options: '-c search_path=users', application_name: 'bench-reference' });
usersPool.on('error', () => undefined);

const FIND_TARGET = `SELECT id, content_type AS "contentType", author_id AS "authorId", title, cover_image_url AS "coverImageUrl",
              deleted, revision, to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS "createdAt"
         FROM content_items WHERE id = $1 AND content_type = $2`;
const FIND_COMMENTS = `SELECT c.id, c.author_id AS "authorId", c.content, iso_timestamp(c.created_at) AS "createdAt",
            iso_timestamp(c.edited_at) AS "editedAt", u.username, u.avatar_url AS "avatarUrl"
       FROM comments c LEFT JOIN users u ON u.id = c.author_id
      WHERE c.target_type = $1 AND c.target_id = $2 AND c.deleted_at IS NULL
      ORDER BY c.created_at, c.id LIMIT $3 OFFSET $4`;
const FIND_COLLECTION = `SELECT id, owner_id AS "ownerId", name, deleted, revision,
              to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS "createdAt"
         FROM known_collections WHERE id = $1`;
const COUNT_COMMENTS = 'SELECT count(*)::int AS count FROM comments WHERE target_type = $1 AND target_id = $2 AND deleted_at IS NULL';

const nullableString = { type: ['string', 'null'] };
const integer = { type: 'integer' };
const commentList = {
  type: 'object',
  required: ['comments', 'total', 'pagination'],
  properties: {
    comments: {
      type: 'array',
      items: {
        type: 'object',
        required: ['id', 'content', 'createdAt', 'editedAt', 'author'],
        properties: {
          id: { type: 'string' },
          content: { type: 'string' },
          createdAt: { type: 'string' },
          editedAt: nullableString,
          author: {
            type: 'object',
            required: ['id', 'username', 'avatarUrl'],
            properties: { id: { type: 'string' }, username: { type: 'string' }, avatarUrl: nullableString },
          },
        },
      },
    },
    total: integer,
    pagination: { type: 'object', required: ['page', 'limit', 'total', 'totalPages'], properties: { page: integer, limit: integer, total: integer, totalPages: integer } },
  },
};
const notFound = { type: 'object', properties: { status: integer, detail: { type: 'string' } } };

const app = Fastify({ logger: false });

for (const [type, plural, name] of [
  ['recipe', 'recipes', 'Recipe'],
  ['post', 'posts', 'Post'],
  ['collection', 'collections', 'Collection'],
]) {
  app.get(
    `/api/${plural}/:id/comments`,
    {
      schema: {
        params: { type: 'object', properties: { id: { type: 'string' } } },
        querystring: { type: 'object', properties: { page: { type: 'integer', minimum: 1, default: 1 }, limit: { type: 'integer', minimum: 1 } } },
        response: { 200: commentList, 404: notFound },
      },
    },
    async (request, reply) => {
      const { id } = request.params;
      const page = request.query.page;
      const limit = Math.min(request.query.limit ?? 50, MAX_PAGE_SIZE);
      const find = type === 'collection' ? { name: 'find-collection', text: FIND_COLLECTION, values: [id] } : { name: 'find-target', text: FIND_TARGET, values: [id, type] };
      const target = UUID.test(id) ? (await pool.query(find)).rows[0] : undefined;
      if (!target || target.deleted) return reply.code(404).send({ status: 404, detail: `${name} not found` });
      const [page1, count] = await Promise.all([
        pool.query({ name: 'find-comments', text: FIND_COMMENTS, values: [type, id, limit, (page - 1) * limit] }),
        pool.query({ name: 'count-comments', text: COUNT_COMMENTS, values: [type, id] }),
      ]);
      const total = count.rows[0].count;
      // Every author is in the read model (the bench seeds them all); the service's fallback look-up is not reached.
      const comments = page1.rows.map((r) => {
        if (r.username === null) throw new Error(`author ${r.authorId} of comment ${r.id} is unknown`);
        return { id: r.id, content: r.content, createdAt: r.createdAt, editedAt: r.editedAt, author: { id: r.authorId, username: r.username, avatarUrl: r.avatarUrl } };
      });
      return { comments, total, pagination: { page, limit, total, totalPages: Math.ceil(total / limit) } };
    },
  );
}

// GET /api/users/:id — services/users/src/accounts.ts `find` (repository.ts `findUserById`, or
// `findUserByUsername` for a name; the service first checks the name as registration would, the bench
// asks by id only), answered as `toAuthor`.
const USER_COLUMNS = `id, username, password_hash AS "passwordHash", avatar_url AS "avatarUrl", revision`;
const FIND_USER_BY_ID = `SELECT ${USER_COLUMNS} FROM users WHERE id = $1`;
const FIND_USER_BY_USERNAME = `SELECT ${USER_COLUMNS} FROM users WHERE lower(username) = lower($1)`;
app.get(
  '/api/users/:id',
  {
    schema: {
      params: { type: 'object', properties: { id: { type: 'string', maxLength: 100 } } },
      response: {
        200: {
          type: 'object',
          required: ['user'],
          properties: {
            user: { type: 'object', required: ['id', 'username', 'avatarUrl'], properties: { id: { type: 'string' }, username: { type: 'string' }, avatarUrl: nullableString } },
          },
        },
        404: notFound,
      },
    },
  },
  async (request, reply) => {
    const { id } = request.params;
    const query = UUID.test(id) ? { name: 'find-user-by-id', text: FIND_USER_BY_ID, values: [id] } : { name: 'find-user-by-username', text: FIND_USER_BY_USERNAME, values: [id] };
    const user = (await usersPool.query(query)).rows[0];
    if (!user) return reply.code(404).send({ status: 404, detail: 'User not found' });
    return { user: { id: user.id, username: user.username, avatarUrl: user.avatarUrl } };
  },
);

await app.listen({ host: '127.0.0.1', port: Number(process.env.PORT) });
