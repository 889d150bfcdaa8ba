// The users service's reads (services/users/src/routes/users/index.ts), on its pool.
import { author, object, problem, sendProblem, statement, USERNAME, UUID } from './common.mjs';

// repository.ts `findUserById` and `findUserByUsername`.
const USER_COLUMNS = `id, username, password_hash AS "passwordHash", avatar_url AS "avatarUrl", revision`;
const findUserById = statement('find-user-by-id', `SELECT ${USER_COLUMNS} FROM users WHERE id = $1`);
const findUserByUsername = statement('find-user-by-username', `SELECT ${USER_COLUMNS} FROM users WHERE lower(username) = lower($1)`);

/** accounts.ts `find`: by UUID, else by a name registration would accept, else nobody. */
async function find(pool, idOrUsername) {
  if (UUID.test(idOrUsername)) return (await pool.query(findUserById(idOrUsername))).rows[0];
  return USERNAME.test(idOrUsername) ? (await pool.query(findUserByUsername(idOrUsername))).rows[0] : undefined;
}

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
    { schema: { params: { type: 'object', properties: { id: { type: 'string', maxLength: 100 } } }, response: { 200: userResponse, 404: problem } } },
    async (request, reply) => {
      const user = await find(pool, request.params.id);
      return user ? toAuthor(user) : sendProblem(reply, 404, 'User not found');
    },
  );
}
