import { env, portsEnv, serviceEnv, sharedStoreEnv } from '@recipes/config';
import { z } from 'zod';
import type { Service } from './route-table.js';
import type { AdmissionSettings } from './admission/admission.js';

/** One or more comma-separated http(s) base URLs; several mean instances used in turn. */
const baseUrls = (fallback: string) =>
  z
    .string()
    .default(fallback)
    .transform((value) =>
      value
        .split(',')
        .map((url) => url.trim().replace(/\/+$/, ''))
        .filter((url) => url !== ''),
    )
    .pipe(z.array(z.url({ protocol: /^https?$/ })).min(1, 'needs at least one http(s) URL'));

/** Where the gateway sends the paths a service owns (`route-table.ts`). */
const upstream = (service: string) => `the ${service} service: one address, or several comma-separated used in turn`;

/** `*` for any origin, else the comma-separated origins allowed to call the API from a browser. */
const corsOrigins = z
  .string()
  .default('*')
  .transform((value): '*' | string[] => {
    const origins = value
      .split(',')
      .map((origin) => origin.trim())
      .filter((origin) => origin !== '');
    return origins.length === 0 || origins.includes('*') ? '*' : origins;
  });

export const gatewayConfigSchema = z
  .object({
    ...serviceEnv,
    ...sharedStoreEnv,
    // None by default: any client that reaches the gateway, from this host too, could otherwise name its own
    // address, and have a fresh rate-limit budget and failed-login count with each.
    TRUST_PROXY: env
      .trustedProxies('none')
      .describe(
        "at the gateway, the ingress or load balancer in front of it (none by default: a client on the gateway's own host is a client like any other)",
      ),
    ...portsEnv({ PORT: 3000, METRICS_PORT: 9100 }),
    USERS_URL: baseUrls('http://127.0.0.1:3001').describe(upstream('users')),
    CONTENT_URL: baseUrls('http://127.0.0.1:3002').describe(upstream('content')),
    COMMENTS_URL: baseUrls('http://127.0.0.1:3003').describe(upstream('comments')),
    COLLECTIONS_URL: baseUrls('http://127.0.0.1:3004').describe(upstream('collections')),
    NOTIFICATIONS_URL: baseUrls('http://127.0.0.1:3005').describe(upstream('notifications')),
    UPSTREAM_TIMEOUT_MS: env
      .positiveInt(10_000)
      .describe('an upstream that has not answered (headers, or the next body chunk) by then gives `504`'),
    UPSTREAM_RESTART_WAIT_MS: env
      .positiveInt(10_000)
      .describe(
        'a request whose every instance of its service refuses the connection or is stopping waits, for this ' +
          'long at most (a restart), until one answers ready, then goes on through its admission lane; past it, `503` with `Retry-After`',
      ),
    STREAM_STALL_TIMEOUT_MS: env
      .positiveInt(30_000)
      .describe(
        'a notification stream whose client takes nothing of what waits for it this long is ' +
          'cut off, so that it holds no memory here (it resumes where it was as it reconnects)',
      ),
    HEALTH_TIMEOUT_MS: env.positiveInt(1_000).describe('per address of a service, for `/health`'),
    OPENAPI_DOCUMENT: env
      .string('generated/openapi.json')
      .describe(
        'the OpenAPI document merged from every service’s, as the build writes it (`node scripts/openapi.mjs build`): ' +
          'served whole at `/openapi.json` and `/docs/json`, whatever is up',
      ),
    EVENTS_EXCHANGE: env
      .string('recipes.events')
      .describe('named in the event catalogue served at `/docs/events.json`; the gateway itself never connects to it'),
    ADMISSION_ENABLED: env
      .flag(true)
      .describe(
        'admission control: requests in flight to one service, reads and writes apart, within a limit ' +
          'that follows latency; the excess is `503` with `Retry-After` (docs/architecture.md §10)',
      ),
    ADMISSION_INITIAL_LIMIT: env.positiveInt(32).describe("admission control's limit at start"),
    ADMISSION_MIN_LIMIT: env.positiveInt(16).describe('the lowest the admission limit goes'),
    ADMISSION_MAX_LIMIT: env.positiveInt(256).describe('the highest the admission limit goes'),
    ADMISSION_LOOP_DELAY_MS: env
      .positiveInt(50)
      .describe(
        "while the gateway's own event loop is this far behind, an API request is `503` before it is routed (streams, health and docs never)",
      ),
    ADMISSION_QUEUE_MAX: env
      .positiveInt(1_000)
      .describe('requests that wait for a slot per service and class at most; one more is `503`'),
    ADMISSION_QUEUE_TIMEOUT_MS: env
      .positiveInt(10_000)
      .describe('the longest a request waits for a slot (its deadline), then `503`'),
    ADMISSION_QUEUE_INTERVAL_MS: env
      .positiveInt(100)
      .describe(
        "a queue looked at twice in a row, this long apart, and found no shorter each time stands, and is cut (CoDel's interval)",
      ),
    ADMISSION_QUEUE_TARGET_MS: env
      .positiveInt(100)
      .describe("in a standing queue, a request that would wait longer is `503` as it arrives (CoDel's target)"),
    RATE_LIMIT_ENABLED: env.flag(true).describe('the per-address rate limit'),
    RATE_LIMIT_MAX: env.positiveInt(300).describe('requests per client address per window'),
    RATE_LIMIT_WINDOW_MS: env.positiveInt(60_000).describe("the rate limit's window"),
    CORS_ORIGINS: corsOrigins.describe('allowed origins, comma-separated, or `*`'),
    GATEWAY_RECORD_RESPONSES_TO: z
      .string()
      .min(1)
      .optional()
      .describe(
        'tests only: a file to which every proxied response is appended, for the conformance check (`response-record.ts`)',
      ),
  })
  .refine(
    (config) =>
      config.ADMISSION_MIN_LIMIT <= config.ADMISSION_INITIAL_LIMIT &&
      config.ADMISSION_INITIAL_LIMIT <= config.ADMISSION_MAX_LIMIT,
    {
      message: 'must lie between ADMISSION_MIN_LIMIT and ADMISSION_MAX_LIMIT',
      path: ['ADMISSION_INITIAL_LIMIT'],
    },
  );

export type GatewayConfig = z.infer<typeof gatewayConfigSchema>;

/** The base URLs of every service, by service. */
export function upstreamUrls(config: GatewayConfig): Record<Service, string[]> {
  return {
    users: config.USERS_URL,
    content: config.CONTENT_URL,
    comments: config.COMMENTS_URL,
    collections: config.COLLECTIONS_URL,
    notifications: config.NOTIFICATIONS_URL,
  };
}

/** Admission control's settings (docs/architecture.md §10). */
export function admissionSettings(config: GatewayConfig): AdmissionSettings {
  return {
    limit: {
      initial: config.ADMISSION_INITIAL_LIMIT,
      min: config.ADMISSION_MIN_LIMIT,
      max: config.ADMISSION_MAX_LIMIT,
    },
    queue: {
      maxWaiting: config.ADMISSION_QUEUE_MAX,
      maxWaitMs: config.ADMISSION_QUEUE_TIMEOUT_MS,
      intervalMs: config.ADMISSION_QUEUE_INTERVAL_MS,
      targetMs: config.ADMISSION_QUEUE_TARGET_MS,
    },
  };
}
