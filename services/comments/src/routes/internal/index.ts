import { commentTargetTypeSchema, exportPage, exportPageQuery, exportUserParams } from '@recipes/contracts';
import { type App, problemResponses } from '@recipes/http';
import { z } from 'zod';
import type { DataExport } from '../../data-export.js';
import { commentSchema } from '../../schemas.js';

const exportedComment = commentSchema.extend({ targetType: commentTargetTypeSchema, targetId: z.uuid() });

/**
 * For the users service: a user's own comments, page by page, for their data export (docs/api.md §11.2). Internal
 * listener only.
 */
export default async function internalRoutes(app: App, { dataExport }: { dataExport: DataExport }) {
  app.get(
    '/export/:userId/comments',
    {
      schema: {
        params: exportUserParams,
        querystring: exportPageQuery,
        response: { 200: exportPage(exportedComment), ...problemResponses(400) },
      },
    },
    async ({ params, query }) => dataExport.comments(params.userId, query),
  );
}
