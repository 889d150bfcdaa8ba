import { callerOf } from '@recipes/auth';
import { pageQuery } from '@recipes/contracts';
import { type App, badRequest, problemResponses } from '@recipes/http';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Notifications } from '../../notifications.js';
import { markAllReadBody, markReadBody, markReadResponse, notificationListResponse, notModified, unreadCountResponse } from '../../schemas.js';

/** Whether `If-None-Match` names `etag` (a list of tags, weak or strong, or `*`; RFC 9110 §13.1.2). */
function matches(ifNoneMatch: string | undefined, etag: string): boolean {
  if (ifNoneMatch === undefined) return false;
  return ifNoneMatch.split(',').some((tag) => {
    const trimmed = tag.trim();
    return trimmed === '*' || trimmed.replace(/^W\//, '') === etag;
  });
}

/**
 * Sends the representation's ETag, and answers 304 (true) when the client has it already. The version is
 * read before the response is built: a change in between gives an older tag with a newer body, which
 * costs the client one more 200, never a stale 304.
 */
async function notModifiedSince(request: FastifyRequest, reply: FastifyReply, version: Promise<number>, variant: string): Promise<boolean> {
  const etag = `"${await version}${variant}"`;
  reply.header('etag', etag).header('cache-control', 'private, no-cache');
  if (!matches(request.headers['if-none-match'], etag)) return false;
  await reply.code(304).send();
  return true;
}

/** The caller's notifications: `/api/notifications/...`. Nobody ever sees or changes another's. */
export default async function notificationRoutes(app: App, { notifications }: { notifications: Notifications }) {
  app.get(
    '',
    {
      onRequest: app.auth.required,
      schema: {
        summary: 'The caller’s notifications, newest first',
        operationId: 'listNotifications',
        tags: ['notifications'],
        security: [{ bearerAuth: [] }],
        querystring: pageQuery(20),
        response: { 200: notificationListResponse, 304: notModified, ...problemResponses(400, 401, 503) },
      },
    },
    async (request, reply) => {
      const { id } = callerOf(request);
      const { page, limit } = request.query;
      if (await notModifiedSince(request, reply, notifications.version(id), `.${page}.${limit}`)) return reply;
      return notifications.list(id, request.query, request.log);
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
      if (await notModifiedSince(request, reply, notifications.version(id), '')) return reply;
      return { count: await notifications.unreadCount(id) };
    },
  );

  app.patch(
    '/read',
    {
      onRequest: app.auth.required,
      schema: {
        summary: 'Mark some of the caller’s notifications read',
        operationId: 'markNotificationsRead',
        description: 'Ids that are unknown, already read or another user’s are ignored; `updated` counts the changed ones.',
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
      // The body is optional, so the schema lets an absent one through as null; a JSON `null` actually
      // sent is no body of this operation.
      preValidation: async (request) => {
        const sent = Number(request.headers['content-length'] ?? 0) > 0 || request.headers['transfer-encoding'] !== undefined;
        if (request.body === null && sent) {
          throw badRequest('The request is not valid', [{ path: 'body', message: 'must be an object when sent' }]);
        }
      },
      schema: {
        summary: 'Mark all of the caller’s notifications read, or those up to one',
        operationId: 'markAllNotificationsRead',
        description: 'With `upTo` (one of the caller’s notification ids), only those created at or before it: what the client has shown.',
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
