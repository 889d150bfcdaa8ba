import rateLimit, { normalizeIP } from '@fastify/rate-limit';
import { unavailable } from '@recipes/contracts';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { HttpError } from './problem.js';
import type { SharedStore } from './shared-store.js';

/**
 * One limit, announced on every response it applies to with the IETF RateLimit headers
 * (draft-ietf-httpapi-ratelimit-headers): `RateLimit-Policy: "name";q=max;w=window` and
 * `RateLimit: "name";r=remaining;t=reset`, both in seconds. Each limit has a name of its own, so the
 * gateway's and a service's limits are two items of one list, never two values of one header.
 */
export interface LimitPolicy {
  name: string;
  max: number;
  windowMs: number;
  /** Whose budget a request spends: the client's address when omitted. */
  keyGenerator?: (request: FastifyRequest) => string;
  /** The 429's detail. */
  detail?: string;
}

/** Where a limit stands for one request. */
export interface LimitState {
  remaining: number;
  resetSeconds: number;
}

export const RATE_LIMIT_POLICY_HEADER = 'ratelimit-policy';
export const RATE_LIMIT_HEADER = 'ratelimit';

export type LimitHook = (request: FastifyRequest, reply: FastifyReply) => Promise<void>;

const policyItem = ({ name, max, windowMs }: LimitPolicy) => `"${name}";q=${max};w=${Math.ceil(windowMs / 1000)}`;
const stateItem = (name: string, { remaining, resetSeconds }: LimitState) =>
  `"${name}";r=${remaining};t=${resetSeconds}`;

/** `list` (a header's value, a list of items) with `item` in place of any item of the same name. */
function withItem(list: unknown, name: string, item: string): string {
  const others = typeof list === 'string' ? list.split(',').map((entry) => entry.trim()) : [];
  return [...others.filter((entry) => entry !== '' && !entry.startsWith(`"${name}";`)), item].join(', ');
}

/** Announces that `policy` applied to this request and where it stands. */
export function announceLimit(reply: FastifyReply, policy: LimitPolicy, state: LimitState): void {
  reply.header(
    RATE_LIMIT_POLICY_HEADER,
    withItem(reply.getHeader(RATE_LIMIT_POLICY_HEADER), policy.name, policyItem(policy)),
  );
  reply.header(
    RATE_LIMIT_HEADER,
    withItem(reply.getHeader(RATE_LIMIT_HEADER), policy.name, stateItem(policy.name, state)),
  );
}

/** Refuses a request over a limit: 429 with `Retry-After` (whole seconds) and the limit announced. */
export function refuseOverLimit(reply: FastifyReply, policy: LimitPolicy, retryAfterSeconds: number): never {
  announceLimit(reply, policy, { remaining: 0, resetSeconds: retryAfterSeconds });
  reply.header('retry-after', retryAfterSeconds);
  throw new HttpError(429, policy.detail ?? 'Too many requests, try again later');
}

/** Before every limit's count in the shared store. */
const limitNamespaceOf = (shared: Pick<SharedStore, 'prefix'>) => `${shared.prefix}limit:`;

/**
 * Where @fastify/rate-limit keeps the count of the limit `name` made by `rateLimits` for `key` (what the limit's
 * `keyGenerator` gives, e.g. a caller's id) in the shared store: the namespace, then the route's method and URL, which
 * a limit made outside a route has none of (`undefinedundefined`), a dash, then `name:key`. The test of
 * `forgetLimitCounts` spends from a limit and finds its count here, so that a library that keys otherwise fails it
 * instead of leaving counts behind.
 */
export const limitCountKey = (shared: Pick<SharedStore, 'prefix'>, name: string, key: string) =>
  `${limitNamespaceOf(shared)}undefinedundefined-${name}:${key}`;

/**
 * Deletes what the limits `names` counted for `key` in the shared store (e.g. a deleted user's id: docs/api.md §11.2);
 * idempotent. While the store is away it fails as `unavailable`, so that an event handler waits for it.
 */
export async function forgetLimitCounts(shared: SharedStore, names: readonly string[], key: string): Promise<void> {
  if (names.length === 0) return;
  try {
    await shared.redis.del(...names.map((name) => limitCountKey(shared, name, key)));
  } catch (error) {
    throw Object.assign(unavailable('The shared store is unavailable: counts cannot be forgotten now'), {
      cause: error,
    });
  }
}

/**
 * Registers @fastify/rate-limit's counters on `app` (none of its own headers or hooks) and gives the
 * onRequest hook of each named limit: the request spends one from its key's budget, the limit is
 * announced, and past it the answer is 429. With a `shared` store every instance counts in it; while it
 * is away the limits admit (a rate limit guards capacity, which an outage of its store does not change).
 */
export async function rateLimits(
  app: FastifyInstance,
  shared?: SharedStore,
): Promise<(policy: LimitPolicy) => LimitHook> {
  await app.register(rateLimit, {
    global: false,
    ...(shared ? { redis: shared.redis, nameSpace: limitNamespaceOf(shared), skipOnError: true } : {}),
  });
  return (policy) => {
    const keyOf = policy.keyGenerator ?? ((request: FastifyRequest) => normalizeIP(request.ip));
    const spend = app.createRateLimit({
      max: policy.max,
      timeWindow: policy.windowMs,
      // Every limit made here shares the store's keys (Redis's, or the memory of this instance): each
      // counts under its own name.
      keyGenerator: (request) => `${policy.name}:${keyOf(request)}`,
    });
    return async (request, reply) => {
      const limit = await spend(request);
      if (limit.isAllowed) return;
      if (limit.isExceeded) refuseOverLimit(reply, policy, limit.ttlInSeconds);
      announceLimit(reply, policy, { remaining: limit.remaining, resetSeconds: limit.ttlInSeconds });
    };
  };
}

/** What spending from a limit the service counts itself came to (e.g. `spendBudget` of @recipes/db). */
export interface LimitSpending extends LimitState {
  allowed: boolean;
}

/**
 * For a limit the service counts itself, by amounts only its domain knows (how many users a request
 * would notify): announces where it stands once spent, or refuses the request as `refuseOverLimit` does.
 */
export function answerSpending(reply: FastifyReply, policy: LimitPolicy, { allowed, ...state }: LimitSpending): void {
  if (!allowed) refuseOverLimit(reply, policy, state.resetSeconds);
  announceLimit(reply, policy, state);
}
