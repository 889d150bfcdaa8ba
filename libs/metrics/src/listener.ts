import Fastify, { type FastifyInstance, LogController } from 'fastify';
import fp from 'fastify-plugin';
import { collectDefaultMetrics, Registry } from 'prom-client';

declare module 'fastify' {
  interface FastifyInstance {
    /**
     * The separate server that answers `GET /metrics`: the process's entry point makes it listen (see `listen` in
     * @recipes/http).
     */
    metricsServer: FastifyInstance;
  }
}

export interface MetricsListenerOptions {
  /** Labels on every series, e.g. `{ service: 'users' }`. */
  labels: Record<string, string>;
  /** What to serve besides Node's own metrics; register their metrics before this plugin (merged once, here). */
  registries: Registry[];
}

/**
 * Serves the registries and the process's own metrics (memory, heap, event loop lag, GC) on a server of
 * its own, on a port of its own, so metrics never reach the public API nor its OpenAPI document. Whoever
 * makes the app listen makes this one listen too (tests that only inject requests leave both closed); it
 * closes with the app. One per process: the event loop monitor it starts runs as long as the process.
 */
async function metricsListenerPlugin(app: FastifyInstance, { labels, registries }: MetricsListenerOptions) {
  const processMetrics = new Registry();
  // The event loop's delay looked at every 100 ms, not prom-client's 10: each look wakes the process, 3 - 5 ms
  // of CPU a second at 10 ms in every process, and a loop that falls behind is as late at either.
  collectDefaultMetrics({ register: processMetrics, eventLoopMonitoringPrecision: 100 });
  const registry = Registry.merge([processMetrics, ...registries]);
  registry.setDefaultLabels(labels);

  const server = Fastify({
    loggerInstance: app.log.child({ listener: 'metrics' }),
    logController: new LogController({ disableRequestLogging: true }),
  });
  server.get('/metrics', async (_request, reply) => reply.type(registry.contentType).send(await registry.metrics()));

  app.decorate('metricsServer', server);
  app.addHook('onClose', async () => {
    await server.close();
  });
}

export const metricsListener = fp(metricsListenerPlugin, { name: 'metrics-listener', fastify: '5.x' });
