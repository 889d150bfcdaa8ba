// The notifications service's reads (services/notifications/src/routes/notifications/index.ts), on its
// pool: the caller's only, with an ETag bound to the caller (libs/http `callerTag`, `answeredNotModified`).
// The bench sends no If-None-Match, so the 304 is left out; the tag is made and sent as the service does.
// And its Web Push reads (routes/push/index.ts): the application server key, the caller's subscriptions.
import { hash } from 'node:crypto';
import { notificationTypeSchema } from '../../libs/contracts/dist/events/notifications.js';
import {
  author,
  boolean,
  integer,
  listingRows,
  listingStatement,
  listPagination,
  listPaginationSchema,
  object,
  pageOf,
  pageQuery,
  problem,
  sendProblem,
  statement,
  string,
  usersByIds,
  withListLinks,
} from './common.mjs';

// repository/notifications.ts `findVersion`, `findPage` (the page and its total, unfiltered), `findCounts`.
const findVersion = statement('find-version', 'SELECT version FROM notification_counts WHERE recipient_id = $1');
const findPage = listingStatement(
  'find-page',
  {
    count: 'SELECT coalesce((SELECT total FROM notification_counts WHERE recipient_id = $1), 0) AS total',
    columns: `id, type, group_key AS "groupKey", actor_id AS "actorId", content_type AS "contentType", content_id AS "contentId",
              comment_id AS "commentId", is_read AS "isRead", created_at AS "createdAt"`,
    from: 'FROM notifications WHERE recipient_id = $1 AND retracted_at IS NULL',
    order: { at: 'created_at', id: 'id', direction: 'desc' },
  },
  1,
);
// repository/groups.ts `findGroupPage` of a page by number (the walk's point: the recipient's last sequence), with and
// without `unreadOnly`.
const ofGroup = 'n.recipient_id = $1 AND n.group_key = g.group_key AND n.retracted_at IS NULL';
const live = 'n.retracted_at IS NULL';
const findGroupPage = (unreadOnly) =>
  listingStatement(
    `find-group-page${unreadOnly ? '-unread' : ''}`,
    {
      count: `SELECT count(DISTINCT group_key)::int AS total FROM notifications
               WHERE recipient_id = $1 AND retracted_at IS NULL${unreadOnly ? ' AND NOT is_read' : ''}`,
      columns: `g.group_key AS "groupKey", g.type, g.content_type AS "contentType", g.content_id AS "contentId",
                g.count, g.unread_count AS "unreadCount", g.actor_count AS "actorCount", g.latest_at AS "latestAt", g.as_of::text AS "asOf",
                (SELECT n.id FROM notifications n WHERE ${ofGroup} ORDER BY n.created_at DESC, n.id DESC LIMIT 1) AS "latestNotificationId",
                ARRAY(SELECT a.actor_id FROM (SELECT n.actor_id, max(n.created_at) AS latest FROM notifications n WHERE ${ofGroup} GROUP BY n.actor_id) AS a
                       ORDER BY a.latest DESC, a.actor_id DESC LIMIT 3) AS "actorIds"`,
      from: `FROM (SELECT n.group_key, min(n.type) AS type, min(n.content_type) AS content_type, min(n.content_id::text)::uuid AS content_id,
                          (count(*) FILTER (WHERE ${live}))::int AS count, (count(*) FILTER (WHERE ${live} AND NOT n.is_read))::int AS unread_count,
                          (count(DISTINCT n.actor_id) FILTER (WHERE ${live}))::int AS actor_count, max(n.created_at) FILTER (WHERE ${live}) AS latest_at,
                          max(n.created_at) FILTER (WHERE n.sequence <= w.as_of) AS place_at, w.as_of
                     FROM notifications n, (SELECT coalesce((SELECT last_sequence FROM notification_counts WHERE recipient_id = $1), 0) AS as_of) AS w
                    WHERE n.recipient_id = $1 AND (${live} OR n.retraction_sequence > w.as_of)
                    GROUP BY n.group_key, w.as_of
                   HAVING count(*) FILTER (WHERE ${live}${unreadOnly ? ' AND NOT n.is_read' : ''}) > 0) AS g
             WHERE g.place_at IS NOT NULL`,
      order: { at: 'g.place_at', id: 'g.group_key', direction: 'desc' },
    },
    1,
  );
const findGroups = { all: findGroupPage(false), unread: findGroupPage(true) };
// repository/preferences.ts `findPreferences`; the types of @recipes/contracts `notificationTypeSchema` (taken from
// it, so that a type added there is answered here too), each on unless set off.
const findPreferences = statement(
  'find-preferences',
  'SELECT type, enabled FROM notification_preferences WHERE recipient_id = $1',
);
const NOTIFICATION_TYPES = notificationTypeSchema.options;
// repository/push-subscriptions.ts `findSubscriptions`.
const findSubscriptions = statement(
  'find-subscriptions',
  'SELECT id, endpoint, created_at AS "createdAt" FROM push_subscriptions WHERE user_id = $1 ORDER BY created_at DESC, id DESC',
);
const findCounts = statement('find-counts', 'SELECT total, unread FROM notification_counts WHERE recipient_id = $1');
const countsOf = (result) => result.rows[0] ?? { total: 0, unread: 0 };

const notification = object(
  {
    id: string,
    type: string,
    groupKey: string,
    actor: author,
    contentType: string,
    contentId: string,
    commentId: string,
    isRead: boolean,
    createdAt: string,
  },
  ['commentId'],
);
const group = object({
  groupKey: string,
  type: string,
  contentType: string,
  contentId: string,
  count: integer,
  unreadCount: integer,
  actors: { type: 'array', items: author },
  actorCount: integer,
  latestNotificationId: string,
  latestAt: string,
});
const subscription = object({ id: string, endpoint: string, createdAt: string });
const secured = (response) => ({ schema: { querystring: pageQuery, response: { 200: response, 401: problem } } });

/** `pushPublicKey`: the system's PUSH_VAPID_PUBLIC_KEY; without it, Web Push is off (503) as in the service. */
export function registerNotifications(app, pool, { pushPublicKey }) {
  /** `callerTag` of what the body is made of, sent with `Cache-Control: private, no-cache`. */
  function sendTag(reply, callerId, representation) {
    const tag = `"${hash('sha256', `${callerId} ${representation}`, 'base64url').slice(0, 22)}"`;
    reply.header('etag', tag).header('cache-control', 'private, no-cache');
  }

  // GET /api/notifications — the tag, then notifications.ts `list`: the page and its total in one statement, then
  // the actors from the users read model (`findByIds`), as `toNotification`.
  app.get(
    '/api/notifications',
    secured(object({ data: { type: 'array', items: notification }, pagination: listPaginationSchema })),
    async (request, reply) => {
      if (!request.caller) return sendProblem(reply, 401, 'A bearer token is required');
      const { id } = request.caller;
      const page = pageOf(request.query, 20);
      // The tag of the caller's version (`notifications.version`, 0 before anything), read before the page,
      // with the place and the filter (none here).
      const { rows: versions } = await pool.query(findVersion(id));
      sendTag(
        reply,
        id,
        `list ${versions[0] ? Number(versions[0].version) : 0} page ${page.page} ${page.limit} all every type`,
      );
      const { rows, total, next } = listingRows(
        await pool.query(findPage(id, page.limit + 1, page.offset)),
        page.limit,
      );
      const actors = await usersByIds(pool, [...new Set(rows.map((record) => record.actorId))]);
      const data = rows.map(({ actorId, commentId, createdAt, ...record }) => {
        const { username, avatarUrl } = actors.get(actorId);
        return {
          ...record,
          actor: { id: actorId, username, avatarUrl },
          ...(commentId === null ? {} : { commentId }),
          createdAt: createdAt.toISOString(),
        };
      });
      return withListLinks(request, reply, { data, pagination: listPagination(page, total, next, 'notifications') });
    },
  );

  // GET /api/notifications/groups — routes/groups: the tag as the list's, then groups.ts `list`: the page of
  // groups and their total in one statement, then their actors from the users read model.
  app.get(
    '/api/notifications/groups',
    {
      schema: {
        querystring: { ...pageQuery, properties: { ...pageQuery.properties, unread: { enum: ['true', 'false'] } } },
        response: {
          200: object({ groups: { type: 'array', items: group }, pagination: listPaginationSchema }),
          401: problem,
        },
      },
    },
    async (request, reply) => {
      if (!request.caller) return sendProblem(reply, 401, 'A bearer token is required');
      const { id } = request.caller;
      const page = pageOf(request.query, 20);
      const unread = request.query.unread === 'true';
      const { rows: versions } = await pool.query(findVersion(id));
      sendTag(
        reply,
        id,
        `groups ${versions[0] ? Number(versions[0].version) : 0} page ${page.page} ${page.limit} ${unread ? 'unread' : 'all'}`,
      );
      const { rows, total, next } = listingRows(
        await pool.query(findGroups[unread ? 'unread' : 'all'](id, page.limit + 1, page.offset)),
        page.limit,
      );
      const actors = await usersByIds(pool, [...new Set(rows.flatMap((row) => row.actorIds))]);
      // The next page is ordered as this one was: the cursor carries the walk's point.
      const walk = next && { ...next, asOf: rows[0].asOf };
      const groups = rows.map(({ actorIds, latestAt, asOf: _asOf, ...row }) => ({
        ...row,
        actors: actorIds.map((actorId) => {
          const { username, avatarUrl } = actors.get(actorId);
          return { id: actorId, username, avatarUrl };
        }),
        latestAt: latestAt.toISOString(),
      }));
      return withListLinks(request, reply, {
        groups,
        pagination: listPagination(page, total, walk, 'notification-groups'),
      });
    },
  );

  // GET /api/notifications/unread-count — notifications.ts `unreadCount` (`findCounts`), the count being its own tag.
  app.get(
    '/api/notifications/unread-count',
    { schema: { response: { 200: object({ count: integer }), 401: problem } } },
    async (request, reply) => {
      if (!request.caller) return sendProblem(reply, 401, 'A bearer token is required');
      const count = countsOf(await pool.query(findCounts(request.caller.id))).unread;
      sendTag(reply, request.caller.id, `unread ${count}`);
      return { count };
    },
  );

  // GET /api/notifications/preferences — preferences.ts `get`: every type, on unless the caller turned it off.
  app.get(
    '/api/notifications/preferences',
    {
      schema: {
        response: {
          200: object({ types: object(Object.fromEntries(NOTIFICATION_TYPES.map((type) => [type, boolean]))) }),
          401: problem,
        },
      },
    },
    async (request, reply) => {
      if (!request.caller) return sendProblem(reply, 401, 'A bearer token is required');
      const set = new Map(
        (await pool.query(findPreferences(request.caller.id))).rows.map((row) => [row.type, row.enabled]),
      );
      return { types: Object.fromEntries(NOTIFICATION_TYPES.map((type) => [type, set.get(type) ?? true])) };
    },
  );

  // GET /api/push/public-key — the configured VAPID key, or 503 when Web Push is not configured.
  app.get(
    '/api/push/public-key',
    { schema: { response: { 200: object({ publicKey: string }), 503: problem } } },
    async (_request, reply) =>
      pushPublicKey === undefined
        ? sendProblem(reply, 503, 'Web Push is not configured')
        : { publicKey: pushPublicKey },
  );

  // GET /api/push/subscriptions — push/subscriptions.ts `list`: the caller's, newest first, as `toSubscription`.
  app.get(
    '/api/push/subscriptions',
    {
      schema: {
        response: { 200: object({ subscriptions: { type: 'array', items: subscription } }), 401: problem },
      },
    },
    async (request, reply) => {
      if (!request.caller) return sendProblem(reply, 401, 'A bearer token is required');
      const { rows } = await pool.query(findSubscriptions(request.caller.id));
      return {
        subscriptions: rows.map(({ id, endpoint, createdAt }) => ({
          id,
          endpoint,
          createdAt: createdAt.toISOString(),
        })),
      };
    },
  );
}
