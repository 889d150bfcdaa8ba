import type { UpstreamRoute } from '@recipes/metrics';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { type RequestPath, readRequestPath } from './request-path.js';
import { routeFor, type Service } from './route-table.js';

/**
 * Where the route table sends a request: the path it reads (request-path.ts), the service (`upstream`) and the
 * pattern that matched (`route`). The same object labels the request's metrics.
 */
export interface Routed extends UpstreamRoute {
  target: RequestPath;
  upstream: Service;
}

declare module 'fastify' {
  interface FastifyRequest {
    /** The request's route, read once as it arrives; null when the gateway routes its path nowhere. */
    routed: Routed | null;
  }
}

/**
 * Reads and routes each request of `app`'s routes once, first of their hooks, for the handler to forward
 * (`request.routed`) and for the metrics to label by the service and the pattern that matched
 * (`/api/recipes/:id/comments`) instead of the one catch-all route: the operator asks which upstream is slow
 * or failing. A request the rate limit refuses is labelled too. A path the table does not route keeps the
 * catch-all and no upstream.
 */
export function routeEachRequest(app: FastifyInstance): void {
  app.decorateRequest('routed', null);
  app.addHook('onRequest', (request, _reply, done) => {
    routeRequest(request);
    done();
  });
}

function routeRequest(request: FastifyRequest): void {
  const target = readRequestPath(request.url);
  const owner = target && routeFor(target.path);
  if (!target || !owner) return;
  request.routed = { target, upstream: owner.service, route: owner.pattern };
  request.upstreamRoute = request.routed;
}
