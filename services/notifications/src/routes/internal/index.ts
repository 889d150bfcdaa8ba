import { exportPage, exportPageQuery, exportUserParams } from '@recipes/contracts';
import { type App, problemResponses } from '@recipes/http';
import { z } from 'zod';
import type { DataExport } from '../../data-export.js';
import { notificationSchema, preferencesResponse } from '../../schemas.js';

/** A push subscription as its owner will list it (Web Push, to come): none are kept yet. */
const pushSubscriptionSchema = z.object({ id: z.uuid(), endpoint: z.string(), createdAt: z.string() });

/**
 * For the users service: what a user holds here, page by page, for their data export (docs/api.md §11.2). Internal
 * listener only.
 */
export default async function internalRoutes(app: App, { dataExport }: { dataExport: DataExport }) {
  const page = { params: exportUserParams, querystring: exportPageQuery };
  app.get(
    '/export/:userId/notifications',
    { schema: { ...page, response: { 200: exportPage(notificationSchema), ...problemResponses(400) } } },
    async ({ params, query }) => dataExport.notifications(params.userId, query),
  );

  app.get(
    '/export/:userId/preferences',
    { schema: { params: exportUserParams, response: { 200: preferencesResponse, ...problemResponses(400) } } },
    async ({ params }) => ({ types: await dataExport.preferences(params.userId) }),
  );

  app.get(
    '/export/:userId/push-subscriptions',
    { schema: { ...page, response: { 200: exportPage(pushSubscriptionSchema), ...problemResponses(400) } } },
    async ({ params, query }) => dataExport.pushSubscriptions(params.userId, query),
  );
}
