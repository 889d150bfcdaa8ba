import type { App } from '@recipes/http';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { routeTable, services } from '../src/route-table.js';
import { startGateway, startUpstream, type Upstream } from './support/servers.js';

const COUNT = 'recipes_http_request_duration_seconds_count';

let upstreams: Upstream[];
let gateway: App;

beforeAll(async () => {
  upstreams = await Promise.all(services.map((name) => startUpstream(name)));
  const urls = Object.fromEntries(upstreams.map((upstream) => [`${upstream.name.toUpperCase()}_URL`, upstream.url]));
  gateway = await startGateway({ ...urls, RATE_LIMIT_ENABLED: 'false' });
});

afterAll(async () => {
  await gateway?.close();
  await Promise.all((upstreams ?? []).map((upstream) => upstream.close()));
});

/** The request counts of the gateway's histogram, keyed by their labels (service label aside). */
async function counts(): Promise<Map<string, number>> {
  const metric = await gateway.metricsRegistry.getSingleMetric('recipes_http_request_duration_seconds')!.get();
  const byLabels = new Map<string, number>();
  for (const { metricName, labels, value } of metric.values) {
    if (metricName !== COUNT) continue;
    const { method, route, status_code, upstream } = labels;
    byLabels.set(JSON.stringify({ method, route, status_code, upstream }), value);
  }
  return byLabels;
}

const key = (method: string, route: string, status_code: number, upstream?: string) =>
  JSON.stringify({ method, route, status_code, upstream });

/** A path segment as a client may send it: ids, names, anything but a dot segment. */
const segment = fc.stringMatching(/^[A-Za-z0-9_~-]{1,36}$/);

describe('the gateway’s request metrics', () => {
  it('label each proxied request with its upstream and the route table’s pattern, never the path', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...routeTable),
        fc.array(segment, { minLength: 3, maxLength: 3 }),
        async ([pattern, service], values) => {
          let next = 0;
          const path = pattern.replace(/:\w+|\*/g, () => values[next++]!);
          const before = (await counts()).get(key('GET', pattern, 200, service)) ?? 0;
          const response = await gateway.inject({ method: 'GET', url: `${path}?page=2` });
          expect(response.statusCode).toBe(200);
          expect((await counts()).get(key('GET', pattern, 200, service))).toBe(before + 1);
        },
      ),
      { numRuns: 60 },
    );
    // Bounded: one series per pattern, method and status at most, whatever the ids were.
    const routes = [...(await counts()).keys()].map((labels) => JSON.parse(labels).route as string);
    expect(new Set(routes).size).toBeLessThanOrEqual(routeTable.length);
    expect(routes.every((route) => routeTable.some(([pattern]) => pattern === route))).toBe(true);
  });

  it('keep the upstream label on a response the gateway makes itself, and leave a path no service owns without one', async () => {
    const stopped = upstreams.find((upstream) => upstream.name === 'collections')!;
    await stopped.close();
    expect((await gateway.inject({ method: 'POST', url: '/api/collections' })).statusCode).toBe(503);
    expect((await counts()).get(key('POST', '/api/collections', 503, 'collections'))).toBe(1);

    expect((await gateway.inject({ method: 'GET', url: '/api/nothing/here' })).statusCode).toBe(404);
    expect((await counts()).get(key('GET', '/api/*', 404))).toBe(1);
  });
});
