import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { Histogram, Registry } from 'prom-client';
import { METRIC_PREFIX } from './registry.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** This app's HTTP metrics; the process serves them with its own on the metrics listener. */
    metricsRegistry: Registry;
  }
}

/** The label of requests no route matched: one value, however many URLs are tried. */
export const UNMATCHED_ROUTE = 'unmatched';

/**
 * Times every response by method, route pattern and status. The route is the pattern (`/api/recipes/:id`),
 * never the URL, so the number of series stays bounded whatever clients send.
 */
async function httpMetricsPlugin(app: FastifyInstance) {
  const registry = new Registry();
  const duration = new Histogram({
    name: `${METRIC_PREFIX}http_request_duration_seconds`,
    help: 'Time from receiving a request to sending its response, by method, route pattern and status code.',
    labelNames: ['method', 'route', 'status_code'] as const,
    registers: [registry],
  });
  app.decorate('metricsRegistry', registry);
  app.addHook('onResponse', (request, reply, done) => {
    duration.observe(
      { method: request.method, route: request.routeOptions.url ?? UNMATCHED_ROUTE, status_code: reply.statusCode },
      reply.elapsedTime / 1_000,
    );
    done();
  });
}

export const httpMetrics = fp(httpMetricsPlugin, { name: 'http-metrics', fastify: '5.x' });
