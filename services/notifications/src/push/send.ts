import { createHash } from 'node:crypto';
import { request } from 'undici';
import webPush from 'web-push';

/** The VAPID pair and subject a push is signed with (RFC 8292). */
export interface Vapid {
  publicKey: string;
  privateKey: string;
  subject: string;
}

export interface PushTarget {
  endpoint: string;
  p256dh: string;
  auth: string;
}

/** What the push service made of one push. */
export type PushOutcome =
  | { kind: 'sent' }
  /** 404 or 410: the subscription is dead. */
  | { kind: 'gone'; status: number }
  /** Another 4xx (but 408 and 429): the subscription is unusable as it is. */
  | { kind: 'rejected'; status: number; body: string }
  /** 408, 429, 5xx, a time-out or a network error: worth another try, not before `retryAfterMs` if given. */
  | { kind: 'retry'; reason: string; retryAfterMs?: number };

/**
 * A `Topic` (RFC 8030 §5.4: at most 32 base64url characters) for a group: its pushes waiting at the push service
 * replace each other.
 */
export function topicOf(groupKey: string): string {
  return createHash('sha256').update(groupKey).digest('base64url').slice(0, 32);
}

/** `Retry-After` in milliseconds (seconds or an HTTP date), or undefined when absent or unreadable. */
export function retryAfterMs(header: string | null, now = Date.now()): number | undefined {
  if (header === null) return undefined;
  if (/^\d+$/.test(header.trim())) return Number(header.trim()) * 1_000;
  const at = Date.parse(header);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

/** How long a VAPID signature is valid (RFC 8292 §2: `exp` at most 24 h ahead), and how long one is reused. */
const VAPID_VALID_SECONDS = 12 * 3600;
const VAPID_REUSED_SECONDS = 11 * 3600;

/**
 * The `Authorization` header for pushes to `endpoint`'s push service: a VAPID JWT for its origin, signed
 * once and reused for an hour less than it is valid, rather than signed for every push (an ECDSA signature
 * was a tenth of a push's CPU).
 */
function vapidSigner(vapid: Vapid) {
  const signed = new Map<string, { authorization: string; renewAt: number }>();
  return (endpoint: string, now = Date.now() / 1000): string => {
    const audience = new URL(endpoint).origin;
    const cached = signed.get(audience);
    if (cached && cached.renewAt > now) return cached.authorization;
    const { Authorization: authorization } = webPush.getVapidHeaders(
      audience,
      vapid.subject,
      vapid.publicKey,
      vapid.privateKey,
      'aes128gcm',
      Math.floor(now) + VAPID_VALID_SECONDS,
    );
    signed.set(audience, { authorization, renewAt: now + VAPID_REUSED_SECONDS });
    return authorization;
  };
}

const signers = new WeakMap<Vapid, ReturnType<typeof vapidSigner>>();

/** The signer of `vapid`'s pushes, one per key pair. */
function signerOf(vapid: Vapid) {
  let signer = signers.get(vapid);
  if (!signer) signers.set(vapid, (signer = vapidSigner(vapid)));
  return signer;
}

/**
 * Sends one push: encrypted as RFC 8291 `aes128gcm` by the `web-push` package and signed with VAPID,
 * posted with undici's `request` (kept-alive connections per origin), so that the time-out covers the
 * whole exchange and `http` endpoints work where tests allow them. Not `fetch`: its web streams cost a
 * push about 0.25 ms more CPU (bench/micro/push-send.mjs).
 */
export async function sendPush(
  target: PushTarget,
  payload: string,
  settings: { vapid: Vapid; ttlSeconds: number; topic: string; timeoutMs: number; stopping: AbortSignal },
): Promise<PushOutcome> {
  const { vapid, ttlSeconds, topic, timeoutMs, stopping } = settings;
  const details = webPush.generateRequestDetails(
    { endpoint: target.endpoint, keys: { p256dh: target.p256dh, auth: target.auth } },
    payload,
    {
      headers: { Authorization: signerOf(vapid)(target.endpoint) },
      TTL: ttlSeconds,
      urgency: 'normal',
      topic,
      contentEncoding: 'aes128gcm',
    },
  );
  // undici counts the body itself.
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(details.headers)) {
    if (name.toLowerCase() !== 'content-length') headers[name] = String(value);
  }
  let status: number;
  let retryAfter: string | string[] | undefined;
  let body: string;
  try {
    const response = await request(target.endpoint, {
      method: 'POST',
      headers,
      body: details.body,
      signal: AbortSignal.any([AbortSignal.timeout(timeoutMs), stopping]),
    });
    status = response.statusCode;
    retryAfter = response.headers['retry-after'];
    body = (await response.body.text()).slice(0, 500);
  } catch (err) {
    if (stopping.aborted) return { kind: 'retry', reason: 'stopping' };
    const timedOut = err instanceof Error && err.name === 'TimeoutError';
    return { kind: 'retry', reason: timedOut ? 'timeout' : 'network' };
  }
  if (status >= 200 && status < 300) return { kind: 'sent' };
  if (status === 404 || status === 410) return { kind: 'gone', status };
  if (status >= 400 && status < 500 && status !== 408 && status !== 429) return { kind: 'rejected', status, body };
  // 408, 429, 5xx, and anything a push service should not answer (a redirect, say, which is not followed):
  // another try later.
  const after = retryAfterMs(typeof retryAfter === 'string' ? retryAfter : null);
  return { kind: 'retry', reason: String(status), ...(after === undefined ? {} : { retryAfterMs: after }) };
}
