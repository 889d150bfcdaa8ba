import { callerOf } from '@recipes/auth';
import { pageQuery } from '@recipes/contracts';
import { type App, problemResponses } from '@recipes/http';
import type { Notifications } from '../../notifications.js';
import { markReadBody, markReadResponse, notificationListResponse, unreadCountResponse } from '../../schemas.js';

/** The caller's notifications: `/api/notifications/...`. Nobody ever sees or changes another's. */
export default async function notificationRoutes(app: App, { notifications }: { notifications: Notifications }) {
  app.get(
    '',
    {
      onRequest: app.auth.required,
      schema: {
        summary: 'The caller’s notifications, newest first',
        tags: ['notifications'],
        security: [{ bearerAuth: [] }],
        querystring: pageQuery(20),
        response: { 200: notificationListResponse, ...problemResponses(400, 401, 503) },
      },
    },
    async (request) => notifications.list(callerOf(request).id, request.query, request.log),
  );

  app.get(
    '/unread-count',
    {
      onRequest: app.auth.required,
      schema: {
        summary: 'How many of the caller’s notifications are unread',
        tags: ['notifications'],
        security: [{ bearerAuth: [] }],
        response: { 200: unreadCountResponse, ...problemResponses(401) },
      },
    },
    async (request) => ({ count: await notifications.unreadCount(callerOf(request).id) }),
  );

  app.patch(
    '/read',
    {
      onRequest: app.auth.required,
      schema: {
        summary: 'Mark some of the caller’s notifications read',
        description: 'Ids that are unknown, already read or another user’s are ignored; `updated` counts the changed ones.',
        tags: ['notifications'],
        security: [{ bearerAuth: [] }],
        body: markReadBody,
        response: { 200: markReadResponse, ...problemResponses(400, 401, 413, 415) },
      },
    },
    async (request) => ({
      message: 'Notifications marked as read',
      updated: await notifications.markRead(callerOf(request).id, request.body.notificationIds),
    }),
  );
}
