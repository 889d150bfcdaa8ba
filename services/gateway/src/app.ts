import cors from '@fastify/cors';
import { type App, createApp, type LimitHook, rateLimits, sharedStoreFor } from '@recipes/http';
import type { Logger } from '@recipes/logging';
import { Admission } from './admission/admission.js';
import { LoopGuard } from './admission/loop-guard.js';
import { admissionSettings, type GatewayConfig, upstreamUrls } from './config.js';
import docsPlugin from './plugins/docs.js';
import eventDocsPlugin from './plugins/event-docs.js';
import proxyPlugin from './plugins/proxy.js';
import streamProxyPlugin from './plugins/stream-proxy.js';
import systemHealthPlugin from './plugins/system-health.js';
import { helmetHeaders } from './security-headers.js';
import { Upstreams } from './upstreams.js';

export interface GatewayDependencies {
  config: GatewayConfig;
  logger: Logger;
}

/** The gateway: security headers, CORS and rate limits around the proxy, plus `/health` and `/docs`. */
export async function buildApp({ config, logger }: GatewayDependencies): Promise<App> {
  // Built once the app has its metrics registry; asked about every request from the start.
  let loopGuard: LoopGuard | undefined;
  const app = await createApp({
    title: 'gateway',
    description: 'The only public port: routes /api to the owning service',
    // Its /openapi.json is the merged document (plugins/docs.ts).
    servesOwnDocument: false,
    logger,
    trustProxy: config.TRUST_PROXY,
    validateResponses: config.RESPONSE_VALIDATION,
    readinessCacheMs: config.HEALTH_CACHE_MS,
    clientTimeouts: { headersMs: config.CLIENT_HEADERS_TIMEOUT_MS, requestMs: config.CLIENT_REQUEST_TIMEOUT_MS },
    ...(config.ADMISSION_ENABLED
      ? { answerEarly: (request, response) => loopGuard?.answerEarly(request, response) ?? false }
      : {}),
  });

  const upstreams = new Upstreams(upstreamUrls(config), {
    timeoutMs: config.UPSTREAM_TIMEOUT_MS,
    restartWaitMs: config.UPSTREAM_RESTART_WAIT_MS,
  });
  app.addHook('onClose', () => upstreams.close());

  // External plugins first.
  // Helmet's headers do not depend on the request: worked out once here, set as they are on every answer.
  const securityHeaders = helmetHeaders({
    contentSecurityPolicy: {
      // Swagger UI at /docs uses only same-origin scripts, so the default policy fits; but the gateway may
      // serve plain HTTP (TLS ends in front of it, or development), where upgrading requests would break it.
      directives: { upgradeInsecureRequests: null },
    },
  });
  app.addHook('onRequest', (_request, reply, done) => {
    reply.headers(securityHeaders);
    done();
  });
  if (config.ADMISSION_ENABLED) {
    loopGuard = new LoopGuard(config.ADMISSION_LOOP_DELAY_MS, app.metricsRegistry, securityHeaders);
    app.addHook('onClose', () => loopGuard?.close());
  }
  await app.register(cors, {
    origin: config.CORS_ORIGINS,
    methods: ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'],
    // One string, which @fastify/cors sets as it is, rather than a list it joins again on every request.
    exposedHeaders: [
      'etag',
      'link',
      'retry-after',
      'ratelimit',
      'ratelimit-policy',
      'x-request-id',
      'idempotent-replayed',
      'www-authenticate',
    ].join(', '),
    maxAge: 600,
  });
  // Per client address (request.ip, so X-Forwarded-For only from trusted proxies). Only /api routes spend
  // it: health probes and docs are never limited.
  let limit: LimitHook | undefined;
  if (config.RATE_LIMIT_ENABLED) {
    const limitOf = await rateLimits(
      app,
      await sharedStoreFor(app, { url: config.REDIS_URL, prefix: config.REDIS_KEY_PREFIX }),
    );
    limit = limitOf({ name: 'gateway', max: config.RATE_LIMIT_MAX, windowMs: config.RATE_LIMIT_WINDOW_MS });
  }

  // Then the gateway's own routes.
  await app.register(systemHealthPlugin, {
    upstreams,
    timeoutMs: config.HEALTH_TIMEOUT_MS,
    cacheMs: config.HEALTH_CACHE_MS,
  });
  await app.register(docsPlugin, { documentFile: config.OPENAPI_DOCUMENT });
  await app.register(eventDocsPlugin, { exchange: config.EVENTS_EXCHANGE });
  await app.register(streamProxyPlugin, { upstreams, limit, stallTimeoutMs: config.STREAM_STALL_TIMEOUT_MS });
  const admission = config.ADMISSION_ENABLED
    ? new Admission(admissionSettings(config), app.metricsRegistry)
    : undefined;
  if (admission) app.addHook('onClose', () => admission.close());
  await app.register(proxyPlugin, {
    upstreams,
    limit,
    admission,
    recordResponsesTo: config.GATEWAY_RECORD_RESPONSES_TO,
  });
  return app;
}
