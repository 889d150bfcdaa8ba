import { timestampSchema } from '@recipes/contracts';
import { z } from 'zod';
import { endpointProblem, isAuthSecret, isP256PublicKey, MAX_ENDPOINT_LENGTH } from './endpoint.js';

export const publicKeyResponse = z.object({
  publicKey: z.string().describe('The VAPID application server key (RFC 8292): an uncompressed P-256 point, base64url'),
});

/** A browser's subscription as `PushSubscription.toJSON()` gives it (the keys of RFC 8291's example). */
const SUBSCRIPTION_EXAMPLE = {
  endpoint: 'https://push.example.net/wpush/v2/gAAAAABn',
  keys: {
    p256dh: 'BCVxsr7N_eNgVRqvHtD0zTZsEc6-VV-JvLexhqUzORcxaOzi6-AYWXvTBHm4bjyPjs7Vd8pZGH6SRpkNtoIAiw4',
    auth: 'BTBZMqHH6r4Tts7J_aSIgg',
  },
};

/**
 * A browser's `PushSubscription.toJSON()` (docs/api.md §11.3). `allowPrivate` (PUSH_ALLOW_PRIVATE_ENDPOINTS,
 * tests only) lets `http` and internal hosts through.
 */
export function subscriptionBody(allowPrivate: boolean) {
  const endpoint = z
    .string()
    .max(MAX_ENDPOINT_LENGTH)
    .superRefine((value, context) => {
      const problem = endpointProblem(value, allowPrivate);
      if (problem) context.addIssue({ code: 'custom', message: problem });
    })
    .meta({
      description: 'The push service URL the browser gave: https, not a loopback, private or link-local host',
      format: 'uri',
    });
  const keys = z.object({
    p256dh: z
      .string()
      .refine(isP256PublicKey, 'must be an uncompressed P-256 public key (65 bytes), base64url')
      .meta({ description: 'The browser’s P-256 public key (RFC 8291), uncompressed, base64url' }),
    auth: z
      .string()
      .refine(isAuthSecret, 'must be a 16-byte secret, base64url')
      .meta({ description: 'The browser’s authentication secret (RFC 8291), 16 bytes, base64url' }),
  });
  return z.object({ endpoint, keys }).meta({ examples: [SUBSCRIPTION_EXAMPLE] });
}

export const pushSubscriptionSchema = z
  .object({ id: z.uuid(), endpoint: z.string(), createdAt: timestampSchema })
  .meta({
    id: 'PushSubscription',
    examples: [
      {
        id: '019375a5-2e3f-7a4b-8c5d-6e7f8a9b0c1d',
        endpoint: 'https://push.example.net/wpush/v2/gAAAAABn',
        createdAt: '2026-11-22T10:00:00.000Z',
      },
    ],
  });

export const subscriptionResponse = z.object({ subscription: pushSubscriptionSchema });
export const subscriptionListResponse = z.object({ subscriptions: z.array(pushSubscriptionSchema) });
export const subscriptionParams = z.object({ id: z.uuid() });
export const messageResponse = z.object({ message: z.string() });
