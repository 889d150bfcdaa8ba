import { env, serviceEnv } from '@recipes/config';
import { z } from 'zod';
import type { Service } from './route-table.js';

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

/** `*` for any origin, else the comma-separated origins allowed to call the API from a browser. */
const corsOrigins = z
  .string()
  .default('*')
  .transform((value): '*' | string[] => {
    const origins = value.split(',').map((origin) => origin.trim()).filter((origin) => origin !== '');
    return origins.length === 0 || origins.includes('*') ? '*' : origins;
  });

export const gatewayConfigSchema = z.object({
  ...serviceEnv,
  /**
   * The proxies in front of the gateway (an ingress, a load balancer), whose X-Forwarded-For names the
   * client. None by default: any client that reaches the gateway, from this host too, could otherwise name
   * its own address, and have a fresh rate-limit budget and failed-login count with each.
   */
  TRUST_PROXY: env.trustedProxies('none'),
  PORT: env.port(3000),
  /** Prometheus metrics, on a port of their own, never the public one. */
  METRICS_PORT: env.port(9100),
  USERS_URL: baseUrls('http://127.0.0.1:3001'),
  CONTENT_URL: baseUrls('http://127.0.0.1:3002'),
  COMMENTS_URL: baseUrls('http://127.0.0.1:3003'),
  COLLECTIONS_URL: baseUrls('http://127.0.0.1:3004'),
  NOTIFICATIONS_URL: baseUrls('http://127.0.0.1:3005'),
  /** An upstream that has not answered (headers, or the next body chunk) by then gives 504. */
  UPSTREAM_TIMEOUT_MS: env.positiveInt(10_000),
  /**
   * An event stream whose client takes nothing of what waits for it this long is cut off, so that a client
   * that stops reading holds no memory here; it resumes where it was (`Last-Event-ID`) when it reconnects.
   */
  STREAM_STALL_TIMEOUT_MS: env.positiveInt(30_000),
  /** Per address of a service, for `/health` and for fetching its OpenAPI document. */
  HEALTH_TIMEOUT_MS: env.positiveInt(1_000),
  DOCS_CACHE_MS: env.positiveInt(10_000),
  /** Named in the event catalogue served at /docs/events.json; the gateway itself never connects to it. */
  EVENTS_EXCHANGE: env.string('recipes.events'),
  /**
   * Admission control (docs/architecture.md, "Overload"): requests in flight to a service, reads and writes
   * apart, within a limit that follows the latency measured, between these bounds; the excess is 503.
   */
  ADMISSION_ENABLED: env.flag(true),
  ADMISSION_INITIAL_LIMIT: env.positiveInt(32),
  ADMISSION_MIN_LIMIT: env.positiveInt(16),
  ADMISSION_MAX_LIMIT: env.positiveInt(256),
  RATE_LIMIT_ENABLED: env.flag(true),
  RATE_LIMIT_MAX: env.positiveInt(300),
  RATE_LIMIT_WINDOW_MS: env.positiveInt(60_000),
  CORS_ORIGINS: corsOrigins,
  /** Tests only: a file to which every proxied response is appended, for the conformance check (response-record.ts). */
  GATEWAY_RECORD_RESPONSES_TO: z.string().min(1).optional(),
}).refine((config) => config.ADMISSION_MIN_LIMIT <= config.ADMISSION_INITIAL_LIMIT && config.ADMISSION_INITIAL_LIMIT <= config.ADMISSION_MAX_LIMIT, {
  message: 'must lie between ADMISSION_MIN_LIMIT and ADMISSION_MAX_LIMIT',
  path: ['ADMISSION_INITIAL_LIMIT'],
});

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
