import { callerOf } from '@recipes/auth';
import { type App, problemResponses } from '@recipes/http';
import type { NotificationPreferences } from '../../preferences.js';
import { preferencesBody, preferencesResponse } from '../../schemas.js';

/** The caller's notification preferences: `/api/notifications/preferences` (docs/api.md §10). */
export default async function preferenceRoutes(app: App, { preferences }: { preferences: NotificationPreferences }) {
  app.get(
    '',
    {
      onRequest: app.auth.required,
      schema: {
        summary: 'Which notification types the caller gets: every type, on unless turned off',
        operationId: 'getNotificationPreferences',
        tags: ['notifications'],
        security: [{ bearerAuth: [] }],
        response: { 200: preferencesResponse, ...problemResponses(401, 503) },
      },
    },
    async (request) => ({ types: await preferences.get(callerOf(request).id) }),
  );

  app.put(
    '',
    {
      onRequest: app.auth.required,
      schema: {
        summary: 'Turn notification types on or off: the types given change, the others stay',
        operationId: 'updateNotificationPreferences',
        tags: ['notifications'],
        security: [{ bearerAuth: [] }],
        body: preferencesBody,
        response: { 200: preferencesResponse, ...problemResponses(400, 401, 413, 415, 503) },
      },
    },
    async (request) => ({ types: await preferences.set(callerOf(request).id, request.body.types) }),
  );
}
