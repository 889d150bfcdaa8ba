// What the modules of the reference share: ids, pages, response schemas, the token check, and the read
// model of users that content, comments, collections and notifications each keep (libs/directory).
import fastifyJwt from '@fastify/jwt';
import { listCursor } from '../../libs/contracts/dist/http/cursor.js';
import { listLinks } from '../../libs/http/dist/links.js';

export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** A username as registration accepts it (@recipes/contracts usernameSchema). */
export const USERNAME = /^[A-Za-z0-9_]{3,30}$/;
const MAX_PAGE_SIZE = 100;

/** A named (prepared) statement, as the services' PreparingClient runs every query with values. */
export const statement =
  (name, text) =>
  (...values) => ({ name, text, values });

export const string = { type: 'string' };
export const integer = { type: 'integer' };
export const boolean = { type: 'boolean' };
export const nullableString = { type: ['string', 'null'] };
/** An object schema with every property required but the `optional` ones. */
export const object = (properties, optional = []) => ({
  type: 'object',
  required: Object.keys(properties).filter((key) => !optional.includes(key)),
  properties,
});
export const author = object({ id: string, username: string, avatarUrl: nullableString });
export const paginationSchema = object({ page: integer, limit: integer, total: integer, totalPages: integer });
/** The part of a problem body (401, 404) that could ever matter here: the bench asks for what exists. */
export const problem = { type: 'object', properties: { status: integer, detail: string } };
export const sendProblem = (reply, status, detail) => reply.code(status).send({ status, detail });

/** Path ids the services take as z.uuid() (anything else a 400). */
export const idParams = { type: 'object', properties: { id: { type: 'string', format: 'uuid' } } };
/** `page` and `limit` of @recipes/contracts pageQuery: `limit` is defaulted and clamped in `pageOf`. */
export const pageQuery = {
  type: 'object',
  properties: { page: { type: 'integer', minimum: 1, default: 1 }, limit: { type: 'integer', minimum: 1 } },
};
export function pageOf({ page, limit }, defaultLimit) {
  const size = Math.min(limit ?? defaultLimit, MAX_PAGE_SIZE);
  return { page, limit: size, offset: (page - 1) * size };
}
export const pagination = ({ page, limit }, total) => ({ page, limit, total, totalPages: Math.ceil(total / limit) });

/** The pagination of a list that pages by cursor too (@recipes/contracts `listPaginationSchema`). */
export const listPaginationSchema = object({
  page: integer,
  limit: integer,
  total: integer,
  totalPages: integer,
  nextCursor: nullableString,
});

/**
 * A listing's page by number and its total in one statement, as libs/db `readListing` sends it: the
 * position of each row (its sort time to the microsecond, its tie-break) beside its columns, one row more
 * than the limit (the two last values: `limit + 1`, the offset).
 */
export const listingStatement = (name, { count, columns, from, order: { at, id, direction } }, parameters) =>
  statement(
    name,
    `SELECT listed.total AS "listingTotal", paged.* FROM (${count}) AS listed
       LEFT JOIN LATERAL (SELECT to_char(${at} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS "positionAt",
                                 (${id})::text AS "positionId", ${columns}
                  ${from}
                 ORDER BY ${at} ${direction}, ${id} ${direction} LIMIT $${parameters + 1} OFFSET $${parameters + 2}) AS paged ON true`,
  );
/** `readListing`'s answer: the page's rows, the total, and the position of the last when more follow. */
export function listingRows({ rows }, limit) {
  const found = rows.filter((row) => row.positionId !== null);
  const shown = found.slice(0, limit);
  const last = shown.at(-1);
  const next = found.length > limit && last ? { at: last.positionAt, id: last.positionId } : null;
  return {
    total: rows[0]?.listingTotal ?? 0,
    next,
    rows: shown.map(({ listingTotal: _, positionAt: __, positionId: ___, ...row }) => row),
  };
}
const cursors = new Map();
/** @recipes/contracts `listPagination` of an answer to a page number, with the cursor of `kind`'s listings. */
export function listPagination({ page, limit }, total, next, kind) {
  if (!cursors.has(kind)) cursors.set(kind, listCursor(kind));
  return {
    page,
    limit,
    total,
    totalPages: Math.ceil(total / limit),
    nextCursor: next ? cursors.get(kind).encode(next) : null,
  };
}
/** libs/http `withListLinks`: the Link header of a list answer, and the answer. */
export function withListLinks(request, reply, answer) {
  const links = listLinks(request.url, answer.pagination);
  if (links !== undefined) reply.header('link', links);
  return answer;
}

/**
 * A listing's page and total in one statement, as libs/db `readPage` sends it: `count` gives `total`, `page` the rows.
 */
export const pageStatement = (name, { count, page }) =>
  statement(
    name,
    `SELECT listed.total AS "listingTotal", paged.* FROM (${count}) AS listed LEFT JOIN LATERAL (${page}) AS paged ON true`,
  );
/** `readPage`'s answer: the rows of the page (none past the end) and the total. */
export function pageRows({ rows }) {
  return {
    total: rows[0]?.listingTotal ?? 0,
    rows: rows.filter((row) => row.id !== null).map(({ listingTotal: _, ...row }) => row),
  };
}

// libs/directory/src/repository.ts `findUsersByIds`, the first step of UserDirectory `findByIds`.
const FIND_USERS_BY_IDS = statement(
  'find-users-by-ids',
  `SELECT id, username, avatar_url AS "avatarUrl", revision FROM users WHERE id = ANY($1::uuid[])`,
);

/**
 * UserDirectory `findByIds` on `pool`'s read model (it queries even for no ids, as the service does). A
 * user missing there is asked of the users service over HTTP by the service; the seeded bench never has
 * one, so the reference stops rather than answer otherwise than the service.
 */
export async function usersByIds(pool, ids) {
  const found = new Map((await pool.query(FIND_USERS_BY_IDS(ids))).rows.map((user) => [user.id, user]));
  const missing = ids.find((id) => !found.has(id));
  if (missing) throw new Error(`user ${missing} is not in the read model (the service would ask the users service)`);
  return found;
}

/**
 * libs/auth/src/plugin.ts: @fastify/jwt with the services' options and key, a sent token checked on every
 * route (a bad one is 401), its claims then `request.caller`. Issuer and audience: the services' defaults.
 */
export async function registerAuth(app, publicKey) {
  await app.register(fastifyJwt, {
    secret: { public: publicKey },
    verify: {
      algorithms: ['EdDSA'],
      allowedIss: process.env.JWT_ISSUER ?? 'recipes-users',
      allowedAud: process.env.JWT_AUDIENCE ?? 'recipes-api',
      requiredClaims: ['sub', 'username', 'iat', 'exp', 'iss', 'aud'],
      cache: 10_000,
    },
  });
  app.decorateRequest('caller', undefined);
  app.addHook('onRequest', async (request, reply) => {
    // As the auth plugin: any answer may depend on the caller.
    reply.header('vary', 'Authorization');
    if (request.headers.authorization === undefined) return;
    reply.header('cache-control', 'private');
    // The claims as the plugin's zod schema has them: sub a UUID, a username.
    const claims = await request.jwtVerify().catch(() => undefined);
    if (
      !claims ||
      typeof claims.sub !== 'string' ||
      !UUID.test(claims.sub) ||
      typeof claims.username !== 'string' ||
      claims.username === ''
    ) {
      return sendProblem(reply, 401, 'The token is invalid or expired');
    }
    request.caller = {
      id: claims.sub,
      username: claims.username,
      sessionId: typeof claims.sid === 'string' ? claims.sid : undefined,
    };
  });
}
