// The users service's reads (services/users/src/routes/users/index.ts), on its pool.
import {
  author,
  boolean,
  listingRows,
  listingStatement,
  listPagination,
  listPaginationSchema,
  object,
  pageOf,
  pageQuery,
  nullableString,
  problem,
  sendProblem,
  statement,
  string,
  USERNAME,
  UUID,
  withListLinks,
} from './common.mjs';

// repository.ts `findUserById` and `findUserByUsername`.
const USER_COLUMNS = `id, username, password_hash AS "passwordHash", avatar_url AS "avatarUrl", revision`;
const findUserById = statement('find-user-by-id', `SELECT ${USER_COLUMNS} FROM users WHERE id = $1`);
const findUserByUsername = statement(
  'find-user-by-username',
  `SELECT ${USER_COLUMNS} FROM users WHERE lower(username) = lower($1)`,
);

/** accounts.ts `find`: by UUID, else by a name registration would accept, else nobody. */
async function find(pool, idOrUsername) {
  if (UUID.test(idOrUsername)) return (await pool.query(findUserById(idOrUsername))).rows[0];
  return USERNAME.test(idOrUsername) ? (await pool.query(findUserByUsername(idOrUsername))).rows[0] : undefined;
}

// repository.ts `findRelatedPage`: the users the caller muted or blocked, most recent first.
const findRelatedPage = Object.fromEntries(
  [
    ['mutes', 'muted_at'],
    ['blocks', 'blocked_at'],
  ].map(([list, since]) => [
    list,
    listingStatement(
      `find-related-page-${list}`,
      {
        count: `SELECT count(*)::int AS total FROM user_relations WHERE user_id = $1 AND ${since} IS NOT NULL`,
        columns: `u.id, u.username, u.avatar_url AS "avatarUrl"`,
        from: `FROM user_relations r JOIN users u ON u.id = r.target_id WHERE r.user_id = $1 AND r.${since} IS NOT NULL`,
        order: { at: `r.${since}`, id: 'r.target_id', direction: 'desc' },
      },
      1,
    ),
  ]),
);
const cursorKinds = { mutes: 'user-mutes', blocks: 'user-blocks' };

// repository/sessions.ts `findLiveSessions`, with the service's default SESSION_IDLE_DAYS.
const findLiveSessions = statement(
  'find-live-sessions',
  `SELECT id, created_at AS "createdAt", last_used_at AS "lastUsedAt", user_agent AS "userAgent"
     FROM sessions
    WHERE user_id = $1 AND ended_at IS NULL AND expires_at > now() AND last_used_at > now() - make_interval(days => $2)
    ORDER BY last_used_at DESC, id DESC`,
);
const SESSION_IDLE_DAYS = 14;
const sessionItem = object({
  id: string,
  createdAt: string,
  lastUsedAt: string,
  userAgent: nullableString,
  current: boolean,
});

const toAuthor = ({ id, username, avatarUrl }) => ({ user: { id, username, avatarUrl } });
const userResponse = object({ user: author });

export function registerUsers(app, pool) {
  // GET /api/users/me — `accounts.find` of the caller, answered as `toAuthor`; a token of an account gone is 401.
  app.get('/api/users/me', { schema: { response: { 200: userResponse, 401: problem } } }, async (request, reply) => {
    if (!request.caller) return sendProblem(reply, 401, 'A bearer token is required');
    const user = await find(pool, request.caller.id);
    return user ? toAuthor(user) : sendProblem(reply, 401, 'The token is invalid or expired');
  });

  // GET /api/users/:id — `accounts.find`, answered as `toAuthor`.
  app.get(
    '/api/users/:id',
    {
      schema: {
        params: { type: 'object', properties: { id: { type: 'string', maxLength: 100 } } },
        response: { 200: userResponse, 404: problem },
      },
    },
    async (request, reply) => {
      const user = await find(pool, request.params.id);
      return user ? toAuthor(user) : sendProblem(reply, 404, 'User not found');
    },
  );

  // GET /api/auth/sessions — routes/auth `listSessions`: the caller's live sessions, theirs marked current.
  app.get(
    '/api/auth/sessions',
    { schema: { response: { 200: object({ sessions: { type: 'array', items: sessionItem } }), 401: problem } } },
    async (request, reply) => {
      if (!request.caller) return sendProblem(reply, 401, 'A bearer token is required');
      const { rows } = await pool.query(findLiveSessions(request.caller.id, SESSION_IDLE_DAYS));
      return {
        sessions: rows.map(({ id, createdAt, lastUsedAt, userAgent }) => ({
          id,
          createdAt: createdAt.toISOString(),
          lastUsedAt: lastUsedAt.toISOString(),
          userAgent,
          current: id === request.caller.sessionId,
        })),
      };
    },
  );

  // GET /api/users/me/mutes and /blocks — relations.ts `list`: the page and its total in one statement.
  for (const list of ['mutes', 'blocks']) {
    app.get(
      `/api/users/me/${list}`,
      {
        schema: {
          querystring: pageQuery,
          response: {
            200: object({ users: { type: 'array', items: author }, pagination: listPaginationSchema }),
            401: problem,
          },
        },
      },
      async (request, reply) => {
        if (!request.caller) return sendProblem(reply, 401, 'A bearer token is required');
        const page = pageOf(request.query, 20);
        const { rows, total, next } = listingRows(
          await pool.query(findRelatedPage[list](request.caller.id, page.limit + 1, page.offset)),
          page.limit,
        );
        return withListLinks(request, reply, {
          users: rows,
          pagination: listPagination(page, total, next, cursorKinds[list]),
        });
      },
    );
  }
}
