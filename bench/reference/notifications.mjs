// The notifications service's reads (services/notifications/src/routes/notifications/index.ts), on its
// pool: the caller's only, with an ETag bound to the caller (libs/http `callerTag`, `answeredNotModified`).
// The bench sends no If-None-Match, so the 304 is left out; the tag is made and sent as the service does.
import { hash } from 'node:crypto';
import { author, boolean, integer, object, pageOf, pageQuery, pageRows, pageStatement, pagination, paginationSchema, problem, sendProblem, statement, string, usersByIds } from './common.mjs';

// repository/notifications.ts `findVersion`, `findPage` (the page and its total), `findCounts`.
const findVersion = statement('find-version', 'SELECT version FROM notification_counts WHERE recipient_id = $1');
const findPage = pageStatement('find-page', {
  count: 'SELECT coalesce((SELECT total FROM notification_counts WHERE recipient_id = $1), 0) AS total',
  page: `SELECT id, type, actor_id AS "actorId", content_type AS "contentType", content_id AS "contentId",
                comment_id AS "commentId", is_read AS "isRead", created_at AS "createdAt"
           FROM notifications
          WHERE recipient_id = $1 AND retracted_at IS NULL
          ORDER BY created_at DESC, id DESC
          LIMIT $2 OFFSET $3`,
});
const findCounts = statement('find-counts', 'SELECT total, unread FROM notification_counts WHERE recipient_id = $1');
const countsOf = (result) => result.rows[0] ?? { total: 0, unread: 0 };

const notification = object(
  { id: string, type: string, actor: author, contentType: string, contentId: string, commentId: string, isRead: boolean, createdAt: string },
  ['commentId'],
);
const secured = (response) => ({ schema: { querystring: pageQuery, response: { 200: response, 401: problem } } });

export function registerNotifications(app, pool) {
  /** `callerTag` of what the body is made of, sent with `Cache-Control: private, no-cache`. */
  function sendTag(reply, callerId, representation) {
    const tag = `"${hash('sha256', `${callerId} ${representation}`, 'base64url').slice(0, 22)}"`;
    reply.header('etag', tag).header('cache-control', 'private, no-cache');
  }

  // GET /api/notifications — the tag, then notifications.ts `list`: the page and its total in one statement, then
  // the actors from the users read model (`findByIds`), as `toNotification`.
  app.get('/api/notifications', secured(object({ data: { type: 'array', items: notification }, pagination: paginationSchema })), async (request, reply) => {
    if (!request.caller) return sendProblem(reply, 401, 'A bearer token is required');
    const { id } = request.caller;
    const page = pageOf(request.query, 20);
    // The tag of the caller's version (`notifications.version`, 0 before anything), read before the page.
    const { rows: versions } = await pool.query(findVersion(id));
    sendTag(reply, id, `list ${versions[0] ? Number(versions[0].version) : 0} ${page.page} ${page.limit}`);
    const { rows, total } = pageRows(await pool.query(findPage(id, page.limit, page.offset)));
    const actors = await usersByIds(pool, [...new Set(rows.map((record) => record.actorId))]);
    const data = rows.map(({ actorId, commentId, createdAt, ...record }) => {
      const { username, avatarUrl } = actors.get(actorId);
      return { ...record, actor: { id: actorId, username, avatarUrl }, ...(commentId === null ? {} : { commentId }), createdAt: createdAt.toISOString() };
    });
    return { data, pagination: pagination(page, total) };
  });

  // GET /api/notifications/unread-count — notifications.ts `unreadCount` (`findCounts`), the count being its own tag.
  app.get('/api/notifications/unread-count', { schema: { response: { 200: object({ count: integer }), 401: problem } } }, async (request, reply) => {
    if (!request.caller) return sendProblem(reply, 401, 'A bearer token is required');
    const count = countsOf(await pool.query(findCounts(request.caller.id))).unread;
    sendTag(reply, request.caller.id, `unread ${count}`);
    return { count };
  });
}
