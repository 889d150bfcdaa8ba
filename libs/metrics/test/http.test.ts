import Fastify, { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { httpMetrics, metricsListener } from '../src/index.js';
import { logger, metricsUrlOf, samples, scrape, valueOf } from './support.js';

const COUNT = 'recipes_http_request_duration_seconds_count';

/** An app as createApp builds it (request histogram first), with the listener a process adds, listening. */
async function appWithMetrics(): Promise<FastifyInstance> {
  const app = Fastify({ loggerInstance: logger });
  await app.register(httpMetrics);
  app.get('/api/recipes/:id', async (request, reply) => {
    const { id } = request.params as { id: string };
    return id === 'missing' ? reply.code(404).send({ detail: 'Recipe not found' }) : { id };
  });
  await app.register(metricsListener, { labels: { service: 'metrics-test' }, registries: [app.metricsRegistry] });
  await app.ready();
  // Only the process's entry point listens; an app that is merely ready (as in route tests) takes no port.
  expect(app.metricsServer.server.listening).toBe(false);
  await app.metricsServer.listen({ host: '127.0.0.1', port: 0 });
  return app;
}

describe('the metrics listener', () => {
  let app: FastifyInstance;
  beforeAll(async () => {
    app = await appWithMetrics();
  });
  afterAll(() => app.close());

  it('serves the process metrics in the Prometheus text format, each labelled with the service', async () => {
    const { status, contentType, text } = await scrape(metricsUrlOf(app));
    expect(status).toBe(200);
    expect(contentType).toMatch(/^text\/plain; version=0\.0\.4/);
    for (const name of ['process_resident_memory_bytes', 'nodejs_heap_size_used_bytes']) {
      expect(valueOf(text, name, { service: 'metrics-test' }), name).toBeGreaterThan(0);
    }
    expect(valueOf(text, 'nodejs_eventloop_lag_seconds', { service: 'metrics-test' })).toBeGreaterThanOrEqual(0);
  });

  it('labels requests by route pattern and status code, never by the URL', async () => {
    for (const url of [
      '/api/recipes/1',
      '/api/recipes/2',
      '/api/recipes/missing',
      '/api/nothing/here',
      '/api/nothing/else?x=1',
    ]) {
      await app.inject({ method: 'GET', url });
    }
    const { text } = await scrape(metricsUrlOf(app));
    const route = '/api/recipes/:id';
    expect(valueOf(text, COUNT, { method: 'GET', route, status_code: '200', service: 'metrics-test' })).toBe(2);
    expect(valueOf(text, COUNT, { method: 'GET', route, status_code: '404' })).toBe(1);
    // Every URL that matched no route shares one label value.
    expect(valueOf(text, COUNT, { method: 'GET', route: 'unmatched', status_code: '404' })).toBe(2);
    expect(
      samples(text, COUNT)
        .map((sample) => sample.labels.route)
        .sort(),
    ).toEqual([route, route, 'unmatched']);
    expect(text).not.toContain('/api/recipes/1');
    expect(text).not.toContain('/api/nothing');
    // The histogram's sum moves with its count.
    expect(valueOf(text, 'recipes_http_request_duration_seconds_sum', { route, status_code: '200' })).toBeGreaterThan(
      0,
    );
  });

  it('is not a route of the app itself', async () => {
    const response = await app.inject({ method: 'GET', url: '/metrics' });
    expect(response.statusCode).toBe(404);
  });

  it('closes with the app', async () => {
    const other = await appWithMetrics();
    const url = metricsUrlOf(other);
    expect((await scrape(url)).status).toBe(200);
    await other.close();
    await expect(fetch(url)).rejects.toThrow();
  });
});
