import { callerOf } from '@recipes/auth';
import { listPagination, listRequest } from '@recipes/contracts';
import { answeredNotModified, type App, callerTag, problemResponses, withListLinks } from '@recipes/http';
import type { Notifications } from '../../notifications.js';
import {
  markAllReadBody,
  markReadBody,
  markReadResponse,
  notificationCursor,
  notificationListQuery,
  notificationListResponse,
  notModified,
  unreadCountResponse,
} from '../../schemas.js';

/** The caller's notifications: `/api/notifications/...`. Nobody ever sees or changes another's. */
export default async function notificationRoutes(app: App, { notifications }: { notifications: Notifications }) {
  app.get(
    '',
    {
      onRequest: app.auth.required,
      schema: {
        summary: 'The caller’s notifications, newest first; only the unread, or some types, when asked',
        operationId: 'listNotifications',
        tags: ['notifications'],
        security: [{ bearerAuth: [] }],
        querystring: notificationListQuery,
        response: { 200: notificationListResponse, 304: notModified, ...problemResponses(400, 401, 503) },
      },
    },
    async (request, reply) => {
      const { id } = callerOf(request);
      const { page, limit, cursor, unread, types } = request.query;
      const filter = { unreadOnly: unread, types: types && [...new Set(types)].sort() };
      // The caller's version, read before the page: a change in between gives an older tag with a newer
      // body, which costs the client one more 200, never a stale 304. The place and the filter are in the
      // tag, so that one page's tag never earns another page, or another filter's, a 304.
      const version = await notifications.version(id);
      const place = cursor ? `after ${cursor.at} ${cursor.id}` : `page ${page}`;
      const kept = `${unread ? 'unread' : 'all'} ${filter.types?.join(',') ?? 'every type'}`;
      if (await answeredNotModified(request, reply, callerTag(id, `list ${version} ${place} ${limit} ${kept}`)))
        return reply;
      const { data, total, next } = await notifications.list(id, filter, listRequest(request.query), request.log);
      return withListLinks(request, reply, {
        data,
        pagination: listPagination(request.query, total, next, notificationCursor),
      });
    },
  );

  app.get(
    '/unread-count',
    {
      onRequest: app.auth.required,
      schema: {
        summary: 'How many of the caller’s notifications are unread',
        operationId: 'getNotificationUnreadCount',
        tags: ['notifications'],
        security: [{ bearerAuth: [] }],
        response: { 200: unreadCountResponse, 304: notModified, ...problemResponses(401, 503) },
      },
    },
    async (request, reply) => {
      const { id } = callerOf(request);
      // The count is the whole body, so it is the tag too: one read answers either way.
      const count = await notifications.unreadCount(id);
      if (await answeredNotModified(request, reply, callerTag(id, `unread ${count}`))) return reply;
      return { count };
    },
  );

  app.patch(
    '/read',
    {
      onRequest: app.auth.required,
      schema: {
        summary: 'Mark some of the caller’s notifications read',
        operationId: 'markNotificationsRead',
        description:
          'Ids that are unknown, already read or another user’s are ignored; `updated` counts the changed ones.',
        tags: ['notifications'],
        security: [{ bearerAuth: [] }],
        body: markReadBody,
        response: { 200: markReadResponse, ...problemResponses(400, 401, 413, 415) },
      },
    },
    async (request) => ({
      message: 'Notifications marked as read',
      updated: await notifications.markRead(callerOf(request).id, request.body.notificationIds, request.id),
    }),
  );

  app.post(
    '/read-all',
    {
      onRequest: app.auth.required,
      schema: {
        summary: 'Mark all of the caller’s notifications read, or those up to one',
        operationId: 'markAllNotificationsRead',
        description:
          'With `upTo` (one of the caller’s notification ids), only those created at or before it: what the client has shown.',
        tags: ['notifications'],
        security: [{ bearerAuth: [] }],
        body: markAllReadBody,
        response: { 200: markReadResponse, ...problemResponses(400, 401, 404, 413, 415, 503) },
      },
    },
    async (request) => ({
      message: 'Notifications marked as read',
      updated: await notifications.markAllRead(callerOf(request).id, request.body?.upTo, request.id),
    }),
  );
}
