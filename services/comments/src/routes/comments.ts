import { callerOf } from '@recipes/auth';
import { type CommentTargetType, listPagination, listRequest } from '@recipes/contracts';
import {
  answerSpending,
  type App,
  type LimitHook,
  type LimitPolicy,
  problemResponses,
  withListLinks,
} from '@recipes/http';
import { type Idempotency, idempotencyKeyHeaders } from '@recipes/idempotency';
import type { FastifyReply } from 'fastify';
import type { Comments } from '../comments.js';
import type { NotificationPayer } from '../mentions.js';
import {
  commentAddedResponse,
  commentBody,
  newCommentBody,
  commentDeletedResponse,
  commentResponse,
  commentListResponse,
  commentCursor,
  commentParams,
  commentsPageQuery,
  targetParams,
} from '../schemas.js';

export interface CommentRoutesOptions {
  comments: Comments;
  /**
   * One limit per caller shared by every kind of target and by posts and edits, so it is made once and handed to each.
   */
  limitPerCaller: LimitHook;
  /** Users a caller may notify per window, spent from this service's `budgets` table as a request mentions them. */
  notificationBudget: LimitPolicy;
  idempotency: Idempotency;
}

const plural: Record<CommentTargetType, string> = { recipe: 'recipes', collection: 'collections', post: 'posts' };

/**
 * `GET` and `POST /{id}/comments`, `PATCH` and `DELETE /{id}/comments/{commentId}`, for one kind of target; each URL
 * prefix registers its own kind.
 */
export function commentRoutes(type: CommentTargetType) {
  const tags = [plural[type]];
  // Operation ids name the kind: listRecipeComments, createPostComment, …
  const kind = `${type[0]!.toUpperCase()}${type.slice(1)}`;

  return async function routes(
    app: App,
    { comments, limitPerCaller, notificationBudget, idempotency }: CommentRoutesOptions,
  ) {
    /** Pays for what the request notifies: where the budget stands is announced on `reply`, or 429 past it. */
    const payerFor = (reply: FastifyReply): NotificationPayer => ({
      budget: notificationBudget,
      answer: (spending) => answerSpending(reply, notificationBudget, spending),
    });

    app.get(
      '/:id/comments',
      {
        schema: {
          summary: `A ${type}’s comments, replies among them, oldest first; or only its top-level comments`,
          operationId: `list${kind}Comments`,
          tags,
          security: [],
          params: targetParams,
          querystring: commentsPageQuery,
          response: { 200: commentListResponse, ...problemResponses(400, 404, 503) },
        },
      },
      async (request, reply) => {
        const filter = { topLevelOnly: request.query.topLevel };
        const {
          comments: found,
          total,
          next,
        } = await comments.list({ type, id: request.params.id }, filter, listRequest(request.query));
        return withListLinks(request, reply, {
          comments: found,
          total,
          pagination: listPagination(request.query, total, next, commentCursor),
        });
      },
    );

    app.post(
      '/:id/comments',
      {
        // The limit counts callers, so it runs once the token has said who is calling.
        onRequest: [app.auth.required, limitPerCaller],
        ...idempotency.hooks,
        // Where the comment is read alone, whatever it is on (`GET /api/comments/{id}`).
        config: { location: ({ comment }) => `/api/comments/${comment.id}` },
        schema: {
          summary: `Comment on a ${type}, or reply to a comment on it; @names in it mention those users`,
          operationId: `create${kind}Comment`,
          tags,
          security: [{ bearerAuth: [] }],
          headers: idempotencyKeyHeaders,
          params: targetParams,
          body: newCommentBody,
          response: {
            201: commentAddedResponse,
            ...problemResponses(400, 401, 403, 404, 409, 413, 415, 422, 429, 503),
          },
        },
      },
      async (request, reply) => {
        const target = { type, id: request.params.id };
        const comment = await comments.add(
          target,
          callerOf(request).id,
          request.body.content,
          request.id,
          payerFor(reply),
          request.body.parentId,
        );
        request.log.info(
          { commentId: comment.id, parentId: comment.parentId, targetType: type, targetId: target.id },
          'comment added',
        );
        return reply.code(201).send({ message: 'Comment added successfully', comment });
      },
    );

    app.patch(
      '/:id/comments/:commentId',
      {
        // Edits spend from the same limit as new comments: each may mention users anew.
        onRequest: [app.auth.required, limitPerCaller],
        schema: {
          summary: `Edit a comment on a ${type}, as its author; mentions follow the new text`,
          operationId: `update${kind}Comment`,
          tags,
          security: [{ bearerAuth: [] }],
          params: commentParams,
          body: commentBody,
          response: { 200: commentResponse, ...problemResponses(400, 401, 403, 404, 413, 415, 429, 503) },
        },
      },
      async (request, reply) => {
        const target = { type, id: request.params.id };
        const comment = await comments.edit(
          target,
          request.params.commentId,
          callerOf(request).id,
          request.body.content,
          request.id,
          payerFor(reply),
        );
        request.log.info({ commentId: comment.id, targetType: type, targetId: target.id }, 'comment edited');
        return { comment };
      },
    );

    app.delete(
      '/:id/comments/:commentId',
      {
        onRequest: app.auth.required,
        schema: {
          summary: `Delete a comment on a ${type}, as its author or the ${type}’s owner`,
          operationId: `delete${kind}Comment`,
          tags,
          security: [{ bearerAuth: [] }],
          params: commentParams,
          response: { 200: commentDeletedResponse, ...problemResponses(401, 403, 404, 503) },
        },
      },
      async (request) => {
        const target = { type, id: request.params.id };
        await comments.remove(target, request.params.commentId, callerOf(request).id, request.id);
        request.log.info(
          { commentId: request.params.commentId, targetType: type, targetId: target.id },
          'comment deleted',
        );
        return { message: 'Comment deleted' as const };
      },
    );
  };
}
