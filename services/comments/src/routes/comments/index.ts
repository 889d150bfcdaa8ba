import { listPagination, listRequest } from '@recipes/contracts';
import { type App, problemResponses, withListLinks } from '@recipes/http';
import type { Comments } from '../../comments.js';
import { commentIdParams, repliesPageQuery, replyCursor, replyListResponse } from '../../schemas.js';

/** `GET /api/comments/{id}/replies`: a comment's replies, whatever it is on (docs/api.md §11.4). */
export default async function replyRoutes(app: App, { comments }: { comments: Comments }) {
  app.get(
    '/:id/replies',
    {
      schema: {
        summary: 'A comment’s replies, oldest first',
        operationId: 'listCommentReplies',
        tags: ['comments'],
        security: [],
        params: commentIdParams,
        querystring: repliesPageQuery,
        response: { 200: replyListResponse, ...problemResponses(400, 404, 503) },
      },
    },
    async (request, reply) => {
      const { comments: found, total, next } = await comments.replies(request.params.id, listRequest(request.query));
      return withListLinks(request, reply, {
        comments: found,
        pagination: listPagination(request.query, total, next, replyCursor),
      });
    },
  );
}
