import { listPagination, listRequest } from '@recipes/contracts';
import { type App, problemResponses, withListLinks } from '@recipes/http';
import type { Comments } from '../../comments.js';
import { commentIdParams, commentResponse, repliesPageQuery, replyCursor, replyListResponse } from '../../schemas.js';

/**
 * A comment named by its id alone, whatever it is on: `GET /api/comments/{id}` (docs/api.md §5), where a new
 * comment's `Location` leads, and its replies, `GET /api/comments/{id}/replies` (docs/api.md §11.4).
 */
export default async function commentByIdRoutes(app: App, { comments }: { comments: Comments }) {
  app.get(
    '/:id',
    {
      schema: {
        summary: 'A comment, with what it is on and its thread',
        operationId: 'getComment',
        tags: ['comments'],
        security: [],
        params: commentIdParams,
        response: { 200: commentResponse, ...problemResponses(404, 503) },
      },
    },
    async (request) => ({ comment: await comments.find(request.params.id) }),
  );

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
