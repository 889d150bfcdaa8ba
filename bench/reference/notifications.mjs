// The notifications service's reads (services/notifications/src/routes/notifications/index.ts), on its
// pool: the caller's only, with the ETag of their version (libs/http `answeredNotModified`). The bench
// sends no If-None-Match, so the 304 is left out; the tag is read and sent as the service does.
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
  /** The route's `etagOf` on `notifications.version` (0 before anything), sent with `Cache-Control: private, no-cache`. */
  async function sendTag(reply, recipientId, variant) {
    const { rows } = await pool.query(findVersion(recipientId));
    reply.header('etag', `"${rows[0] ? Number(rows[0].version) : 0}${variant}"`).header('cache-control', 'private, no-cache');
  }

  // GET /api/notifications — the tag, then notifications.ts `list`: the page and its total in one statement, then
  // the actors from the users read model (`findByIds`), as `toNotification`.
  app.get('/api/notifications', secured(object({ data: { type: 'array', items: notification }, pagination: paginationSchema })), async (request, reply) => {
    if (!request.caller) return sendProblem(reply, 401, 'A bearer token is required');
    const { id } = request.caller;
    const page = pageOf(request.query, 20);
    await sendTag(reply, id, `.${page.page}.${page.limit}`);
    const { rows, total } = pageRows(await pool.query(findPage(id, page.limit, page.offset)));
    const actors = await usersByIds(pool, [...new Set(rows.map((record) => record.actorId))]);
    const data = rows.map(({ actorId, commentId, createdAt, ...record }) => {
      const { username, avatarUrl } = actors.get(actorId);
      return { ...record, actor: { id: actorId, username, avatarUrl }, ...(commentId === null ? {} : { commentId }), createdAt: createdAt.toISOString() };
    });
    return { data, pagination: pagination(page, total) };
  });

  // GET /api/notifications/unread-count — the tag, then notifications.ts `unreadCount` (`findCounts`).
  app.get('/api/notifications/unread-count', { schema: { response: { 200: object({ count: integer }), 401: problem } } }, async (request, reply) => {
    if (!request.caller) return sendProblem(reply, 401, 'A bearer token is required');
    await sendTag(reply, request.caller.id, '');
    return { count: countsOf(await pool.query(findCounts(request.caller.id))).unread };
  });
}
