import { callerOf } from '@recipes/auth';
import { unavailable } from '@recipes/contracts';
import { type App, problemResponses } from '@recipes/http';
import type { WebPush } from '../../push/index.js';
import {
  messageResponse,
  publicKeyResponse,
  subscriptionBody,
  subscriptionListResponse,
  subscriptionParams,
  subscriptionResponse,
} from '../../push/schemas.js';

/** Web Push: the application server key and the caller's subscriptions, `/api/push/...` (docs/api.md §11.3). */
export default async function pushRoutes(app: App, { push }: { push: WebPush }) {
  // The key, or 503 when Web Push is not configured. Not async: the key's route answers without a promise.
  const configuredKey = () => {
    if (push.publicKey === undefined) throw unavailable('Web Push is not configured');
    return push.publicKey;
  };

  app.get(
    '/public-key',
    {
      schema: {
        summary: 'The VAPID application server key a browser subscribes with',
        operationId: 'getPushPublicKey',
        tags: ['push'],
        security: [],
        response: { 200: publicKeyResponse, ...problemResponses(503) },
      },
    },
    () => ({ publicKey: configuredKey() }),
  );

  app.post(
    '/subscriptions',
    {
      onRequest: app.auth.required,
      // The subscription's own path, where it is deleted.
      config: { location: ({ subscription }, path) => `${path}/${subscription.id}` },
      schema: {
        summary: 'Subscribe a browser to the caller’s notifications; the same endpoint again replaces it',
        operationId: 'createPushSubscription',
        description:
          'The body is the browser’s `PushSubscription.toJSON()`. `201` for a new subscription, `200` when it replaces the ' +
          'caller’s one of the same endpoint. At most 10 per user: the oldest goes. It ends with the session that made it.',
        tags: ['push'],
        security: [{ bearerAuth: [] }],
        body: subscriptionBody(push.allowPrivateEndpoints),
        response: {
          200: subscriptionResponse,
          201: subscriptionResponse,
          ...problemResponses(400, 401, 413, 415, 503),
        },
      },
    },
    async (request, reply) => {
      configuredKey(); // 503 before anything is stored
      const { id, session } = callerOf(request);
      const { subscription, created } = await push.subscriptions.subscribe(
        { userId: id, sessionId: session?.id },
        request.body,
      );
      return reply.code(created ? 201 : 200).send({ subscription });
    },
  );

  app.get(
    '/subscriptions',
    {
      onRequest: app.auth.required,
      schema: {
        summary: 'The caller’s push subscriptions, newest first',
        operationId: 'listPushSubscriptions',
        tags: ['push'],
        security: [{ bearerAuth: [] }],
        response: { 200: subscriptionListResponse, ...problemResponses(401, 503) },
      },
    },
    async (request) => ({ subscriptions: await push.subscriptions.list(callerOf(request).id) }),
  );

  app.delete(
    '/subscriptions/:id',
    {
      onRequest: app.auth.required,
      schema: {
        summary: 'Delete one of the caller’s push subscriptions',
        operationId: 'deletePushSubscription',
        description: 'Another user’s or an unknown id is `404`.',
        tags: ['push'],
        security: [{ bearerAuth: [] }],
        params: subscriptionParams,
        response: { 200: messageResponse, ...problemResponses(401, 404, 503) },
      },
    },
    async (request) => {
      await push.subscriptions.unsubscribe(callerOf(request).id, request.params.id);
      return { message: 'Push subscription deleted' };
    },
  );
}
