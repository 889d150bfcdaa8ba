import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { Histogram, Registry } from 'prom-client';
import { METRIC_PREFIX } from './registry.js';

/** Where a forwarding route (the gateway's proxy) sent a request: the service and the pattern that chose it. */
export interface UpstreamRoute {
  /** The owning service, e.g. `comments`. */
  upstream: string;
  /** The route table's pattern, e.g. `/api/recipes/:id/comments`: never the URL. */
  route: string;
}

declare module 'fastify' {
  interface FastifyInstance {
    /** This app's HTTP metrics; the process serves them with its own on the metrics listener. */
    metricsRegistry: Registry;
  }
  interface FastifyRequest {
    /**
     * Set by a route that forwards the request to another service, so its time is labelled by that
     * service and the pattern that matched, where its own route is one catch-all (`/api/*`) for every path.
     */
    upstreamRoute: UpstreamRoute | null;
  }
}

/** The label of requests no route matched: one value, however many URLs are tried. */
export const UNMATCHED_ROUTE = 'unmatched';

/**
 * Times every response by method, route pattern and status, and by upstream where the request was
 * forwarded. The route is the pattern (`/api/recipes/:id`), never the URL, so the number of series stays
 * bounded whatever clients send.
 */
async function httpMetricsPlugin(app: FastifyInstance) {
  const registry = new Registry();
  const duration = new Histogram({
    name: `${METRIC_PREFIX}http_request_duration_seconds`,
    help: 'Time from receiving a request to sending its response, by method, route pattern, status code and (forwarded requests) upstream service.',
    labelNames: ['method', 'route', 'status_code', 'upstream'] as const,
    registers: [registry],
  });
  app.decorate('metricsRegistry', registry);
  app.decorateRequest('upstreamRoute', null);
  app.addHook('onResponse', (request, reply, done) => {
    const forwarded = request.upstreamRoute;
    const route = forwarded?.route ?? request.routeOptions.url ?? UNMATCHED_ROUTE;
    const labels = { method: request.method, route, status_code: reply.statusCode };
    duration.observe(forwarded ? { ...labels, upstream: forwarded.upstream } : labels, reply.elapsedTime / 1_000);
    done();
  });
}

export const httpMetrics = fp(httpMetricsPlugin, { name: 'http-metrics', fastify: '5.x' });
