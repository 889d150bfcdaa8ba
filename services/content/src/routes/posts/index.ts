import { idParams } from '@recipes/contracts';
import { callerOf } from '@recipes/auth';
import { type App, type LimitPolicy, problemResponses } from '@recipes/http';
import { type Idempotency, idempotencyKeyHeaders } from '@recipes/idempotency';
import type { Posts } from '../../posts.js';
import { idsQuery, messageResponse, postDraftBody, postResponse, postsResponse } from '../../schemas.js';
import { spendingOn } from '../notification-budget.js';
import { tokenRequired } from '../security.js';

const tags = ['posts'];

/** Posts: `/api/posts/...`. */
export default async function postRoutes(
  app: App,
  {
    posts,
    notificationBudget,
    idempotency,
  }: { posts: Posts; notificationBudget: LimitPolicy; idempotency: Idempotency },
) {
  // '' rather than '/': the path is exactly the prefix, as the gateway routes it and the document shows it.
  app.post(
    '',
    {
      onRequest: app.auth.required,
      ...idempotency.hooks,
      config: { location: ({ post }) => `/api/posts/${post.id}` },
      schema: {
        summary: 'Publish a post',
        operationId: 'createPost',
        tags,
        security: tokenRequired,
        headers: idempotencyKeyHeaders,
        body: postDraftBody,
        response: { 201: postResponse, ...problemResponses(400, 401, 409, 413, 415, 422, 429, 503) },
      },
    },
    async (request, reply) => {
      const post = await posts.publish(
        callerOf(request).id,
        request.body,
        request.id,
        spendingOn(notificationBudget, reply),
      );
      request.log.info({ postId: post.id }, 'post published');
      return reply.code(201).send({ post });
    },
  );

  app.get(
    '',
    {
      schema: {
        summary: 'Posts by id, in the order asked; those missing or deleted left out',
        operationId: 'getPostsByIds',
        tags,
        security: [],
        querystring: idsQuery,
        response: { 200: postsResponse, ...problemResponses(400) },
      },
    },
    async (request) => ({ posts: await posts.findMany(request.query.ids) }),
  );

  app.get(
    '/:id',
    {
      schema: {
        summary: 'A post',
        operationId: 'getPost',
        tags,
        security: [],
        params: idParams,
        response: { 200: postResponse, ...problemResponses(404) },
      },
    },
    async (request) => ({ post: await posts.find(request.params.id) }),
  );

  app.delete(
    '/:id',
    {
      onRequest: app.auth.required,
      schema: {
        summary: 'Delete one’s own post',
        operationId: 'deletePost',
        tags,
        security: tokenRequired,
        params: idParams,
        response: { 200: messageResponse, ...problemResponses(401, 403, 404) },
      },
    },
    async (request) => {
      await posts.remove(request.params.id, callerOf(request).id, request.id);
      return { message: 'Post deleted' };
    },
  );
}
