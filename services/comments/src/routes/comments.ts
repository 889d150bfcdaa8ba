import { callerOf } from '@recipes/auth';
import { type CommentTargetType, pagination } from '@recipes/contracts';
import { type App, problemResponses } from '@recipes/http';
import type { onRequestHookHandler } from 'fastify';
import type { Comments } from '../comments.js';
import { commentAddedResponse, commentBody, commentListResponse, commentsPageQuery, targetParams } from '../schemas.js';

export interface CommentRoutesOptions {
  comments: Comments;
  /** One limit per caller shared by every kind of target, so it is made once and handed to each. */
  limitPerCaller: onRequestHookHandler;
}

const plural: Record<CommentTargetType, string> = { recipe: 'recipes', collection: 'collections', post: 'posts' };

/** `GET` and `POST /{id}/comments` for one kind of target; each URL prefix registers its own kind. */
export function commentRoutes(type: CommentTargetType) {
  const tags = [plural[type]];

  return async function routes(app: App, { comments, limitPerCaller }: CommentRoutesOptions) {
    app.get(
      '/:id/comments',
      {
        schema: {
          summary: `A ${type}’s comments, oldest first`,
          tags,
          params: targetParams,
          querystring: commentsPageQuery,
          response: { 200: commentListResponse, ...problemResponses(400, 404, 503) },
        },
      },
      async (request) => {
        const page = await comments.list({ type, id: request.params.id }, request.query);
        return { ...page, pagination: pagination(request.query, page.total) };
      },
    );

    app.post(
      '/:id/comments',
      {
        // The limit counts callers, so it runs once the token has said who is calling.
        onRequest: [app.auth.required, limitPerCaller],
        schema: {
          summary: `Comment on a ${type}; @names in it mention those users`,
          tags,
          security: [{ bearerAuth: [] }],
          params: targetParams,
          body: commentBody,
          response: { 201: commentAddedResponse, ...problemResponses(400, 401, 404, 413, 415, 429, 503) },
        },
      },
      async (request, reply) => {
        const target = { type, id: request.params.id };
        const comment = await comments.add(target, callerOf(request).id, request.body.content, request.id);
        request.log.info({ commentId: comment.id, targetType: type, targetId: target.id }, 'comment added');
        return reply.code(201).send({ message: 'Comment added successfully', comment });
      },
    );
  };
}
