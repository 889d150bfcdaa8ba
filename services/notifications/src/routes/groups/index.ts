import { callerOf } from '@recipes/auth';
import { listPagination, listRequest } from '@recipes/contracts';
import { answeredNotModified, type App, callerTag, problemResponses, withListLinks } from '@recipes/http';
import type { NotificationGroups } from '../../groups.js';
import type { Notifications } from '../../notifications.js';
import {
  groupCursor,
  groupListQuery,
  groupListResponse,
  groupParams,
  markReadResponse,
  notModified,
} from '../../schemas.js';

/**
 * The caller's notifications grouped, for the clients that ask: `/api/notifications/groups/...` (docs/api.md §10.5).
 */
export default async function groupRoutes(
  app: App,
  { groups, notifications }: { groups: NotificationGroups; notifications: Notifications },
) {
  app.get(
    '',
    {
      onRequest: app.auth.required,
      schema: {
        summary: 'The caller’s notifications grouped by type and content, latest first',
        operationId: 'listNotificationGroups',
        tags: ['notifications'],
        security: [{ bearerAuth: [] }],
        querystring: groupListQuery,
        response: { 200: groupListResponse, 304: notModified, ...problemResponses(400, 401, 503) },
      },
    },
    async (request, reply) => {
      const { id } = callerOf(request);
      const { page, limit, cursor, unread } = request.query;
      // As the flat list's tag (routes/notifications): the caller's version, read first, with the place and filter.
      const version = await notifications.version(id);
      const place = cursor ? `after ${cursor.at} ${cursor.id} as of ${cursor.asOf ?? 'now'}` : `page ${page}`;
      if (
        await answeredNotModified(
          request,
          reply,
          callerTag(id, `groups ${version} ${place} ${limit} ${unread ? 'unread' : 'all'}`),
        )
      )
        return reply;
      const {
        groups: found,
        total,
        next,
      } = await groups.list(id, { unreadOnly: unread }, listRequest(request.query), request.log);
      return withListLinks(request, reply, {
        groups: found,
        pagination: listPagination(request.query, total, next, groupCursor),
      });
    },
  );

  app.post(
    '/:groupKey/read',
    {
      onRequest: app.auth.required,
      schema: {
        summary: 'Mark every notification of one of the caller’s groups read',
        operationId: 'markNotificationGroupRead',
        description:
          'A group key that is not one of the caller’s groups (another user’s, unknown, or not a group key) is 404.',
        tags: ['notifications'],
        security: [{ bearerAuth: [] }],
        params: groupParams,
        response: { 200: markReadResponse, ...problemResponses(401, 404, 503) },
      },
    },
    async (request) => ({
      message: 'Notifications marked as read',
      updated: await groups.markRead(callerOf(request).id, request.params.groupKey, request.id),
    }),
  );
}
