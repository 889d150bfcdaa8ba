import { Readable } from 'node:stream';
import { callerOf } from '@recipes/auth';
import { type App, problemResponses, rateLimits, type SharedStore, unauthorized } from '@recipes/http';
import type { DataExport } from '../../data-export.js';
import { exportResponse } from '../../schemas.js';

/** The limit of a user's data exports, counted by their id; forgotten with a deleted account (../account-counts.ts). */
export const EXPORTS_LIMIT = 'exports';

export interface ExportRoutesOptions {
  dataExport: DataExport;
  perHour: number;
  shared: SharedStore | undefined;
}

/**
 * `GET /api/users/me/export` (docs/api.md §11.2): everything of the caller's, as one JSON document streamed as it is
 * gathered.
 */
export default async function exportRoutes(app: App, { dataExport, perHour, shared }: ExportRoutesOptions) {
  const perUser = (await rateLimits(app, shared))({
    name: EXPORTS_LIMIT,
    max: perHour,
    windowMs: 3_600_000,
    detail: 'Too many exports this hour, try again later',
    keyGenerator: (request) => callerOf(request).id,
  });
  app.get(
    '/me/export',
    {
      onRequest: [app.auth.required, perUser],
      schema: {
        summary: 'Everything the caller made or that is about them, as one JSON file',
        description: `Streamed as it is gathered from every service. At most ${perHour} an hour per user.`,
        operationId: 'exportMyData',
        tags: ['users'],
        security: [{ bearerAuth: [] }],
        response: { 200: exportResponse, ...problemResponses(401, 429) },
      },
    },
    async (request, reply) => {
      const caller = callerOf(request);
      const document = await dataExport.open(caller.id, caller.session?.id ?? null);
      if (!document) throw unauthorized('ACCOUNT_DELETED');
      const stream = Readable.from(document, { objectMode: false });
      // Once the head is sent a failure cannot be a status: the download is cut short instead, never passed off as
      // whole.
      stream.on('error', (err) => request.log.warn({ err }, 'data export cut short'));
      return reply
        .header('content-type', 'application/json; charset=utf-8')
        .header('content-disposition', `attachment; filename="export-${caller.id}.json"`)
        .header('cache-control', 'no-store')
        .send(stream as never);
    },
  );
}
