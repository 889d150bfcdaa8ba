import { problemSchema } from '@recipes/contracts';
import { eventually } from '@recipes/testing';
import { openEventStream } from '@recipes/testing/sse';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StartedSystem } from '../scripts/system.mjs';
import { type JsonCall, jsonClient } from './support/http.js';
import { startTestSystem } from './support/system.js';

/**
 * Prometheus metrics of every process, scraped where Prometheus would: on each process's metrics port,
 * never through the gateway's public one.
 */
let system: StartedSystem;
let api: string;
let call: JsonCall;

beforeAll(async () => {
  system = await startTestSystem({
    name: 'recipes_metrics',
    portOffset: 3400,
  });
  api = `${system.urlOf('gateway')}/api`;
  call = jsonClient(api);
}, 60_000);
afterAll(() => system?.stop());

interface Sample {
  labels: Record<string, string>;
  value: number;
}

/** The samples of one series in Prometheus' text format. */
function samples(text: string, name: string): Sample[] {
  return text.split('\n').flatMap((line) => {
    const match = /^([A-Za-z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!match || match[1] !== name) return [];
    const labels = Object.fromEntries(
      [...(match[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map((m) => [m[1]!, m[2]!]),
    );
    return [{ labels, value: Number(match[3]) }];
  });
}

/** The sum of the samples of `name` whose labels include `labels`. */
function total(text: string, name: string, labels: Record<string, string> = {}): number {
  return samples(text, name)
    .filter((sample) => Object.entries(labels).every(([key, value]) => sample.labels[key] === value))
    .reduce((sum, sample) => sum + sample.value, 0);
}

async function metricsOf(service: string): Promise<string> {
  const response = await fetch(`${system.process(service)!.metricsUrl}/metrics`);
  expect(response.status, `${service} metrics`).toBe(200);
  return response.text();
}

const REQUESTS = 'recipes_http_request_duration_seconds_count';

describe('metrics', () => {
  let bobsToken: string;

  beforeAll(async () => {
    // Some traffic for every service, and a mention that goes comments → outbox → broker → notifications.
    const [ada, bob] = await Promise.all(
      ['metrics_ada', 'metrics_bob'].map(
        async (username) => (await call('POST', '/auth/register', { username, password: 'correct horse' })).body,
      ),
    );
    const recipe = await call(
      'POST',
      '/recipes',
      { title: 'Metrics', cameraModel: 'X100V', filmSimulation: 'Acros' },
      ada.token,
    );
    expect(recipe.status).toBe(201);
    expect((await call('POST', '/collections', { name: 'Counted' }, ada.token)).status).toBe(201);
    expect(
      (await call('POST', `/recipes/${recipe.body.recipe.id}/comments`, { content: 'Look, @metrics_bob' }, ada.token))
        .status,
    ).toBe(201);
    await eventually(
      async () =>
        (await call('GET', '/notifications', undefined, bob.token)).body.data.length === 1 ? true : undefined,
      10_000,
    );
    bobsToken = bob.token;
  });

  it('are served by every process on its own metrics port, labelled with the service', async () => {
    expect(system.processes.map((p) => p.service).sort()).toEqual([
      'collections',
      'comments',
      'content',
      'gateway',
      'notifications',
      'users',
    ]);
    for (const { service } of system.processes) {
      const text = await metricsOf(service);
      expect(total(text, 'process_resident_memory_bytes', { service }), service).toBeGreaterThan(0);
      expect(samples(text, 'nodejs_eventloop_lag_seconds'), service).toHaveLength(1);
      expect(text, service).not.toMatch(/ NaN$/m);
    }
  });

  it('time requests by route pattern in every process, the gateway included', async () => {
    const gateway = await metricsOf('gateway');
    // The gateway's by upstream and the route table's pattern, as it forwarded them.
    const forwarded: Array<[string, string]> = [
      ['users', '/api/auth/*'],
      ['content', '/api/recipes'],
      ['collections', '/api/collections'],
      ['comments', '/api/recipes/:id/comments'],
    ];
    for (const [upstream, route] of forwarded) {
      expect(
        total(gateway, REQUESTS, { service: 'gateway', upstream, route, method: 'POST', status_code: '201' }),
        route,
      ).toBeGreaterThanOrEqual(1);
    }
    expect(
      total(gateway, REQUESTS, {
        upstream: 'notifications',
        route: '/api/notifications',
        method: 'GET',
        status_code: '200',
      }),
    ).toBeGreaterThanOrEqual(1);
    expect(total(gateway, REQUESTS, { route: '/api/*' })).toBe(0);
    const routes: Record<string, [string, string, string]> = {
      users: ['POST', '/api/auth/register', '201'],
      content: ['POST', '/api/recipes', '201'],
      collections: ['POST', '/api/collections', '201'],
      comments: ['POST', '/api/recipes/:id/comments', '201'],
      notifications: ['GET', '/api/notifications', '200'],
    };
    for (const [service, [method, route, status_code]] of Object.entries(routes)) {
      const text = await metricsOf(service);
      expect(
        total(text, REQUESTS, { service, method, route, status_code }),
        `${service} ${method} ${route}`,
      ).toBeGreaterThanOrEqual(1);
      // Route patterns only: no identifier ever becomes a label value.
      expect(text, service).not.toMatch(/route="[^"]*[0-9a-f]{8}-[0-9a-f]{4}-/);
    }
  });

  it('count the mention event published by comments and consumed by notifications', async () => {
    const type = 'comment.mention.created';
    await eventually(async () =>
      total(await metricsOf('comments'), 'recipes_events_published_total', { type }) >= 1 ? true : undefined,
    );
    const notifications = await metricsOf('notifications');
    expect(total(notifications, 'recipes_events_consumed_total', { type })).toBeGreaterThanOrEqual(1);
    expect(total(notifications, 'recipes_events_dead_lettered_total')).toBe(0);
    expect(
      total(await metricsOf('users'), 'recipes_events_published_total', { type: 'user.created' }),
    ).toBeGreaterThanOrEqual(2);
  });

  it('show the outbox, the pool and the dead-letter queue of the backend services', async () => {
    for (const service of ['users', 'content', 'comments', 'collections', 'notifications']) {
      const text = await metricsOf(service);
      expect(samples(text, 'recipes_outbox_pending_events'), service).toHaveLength(1);
      expect(samples(text, 'recipes_outbox_oldest_event_age_seconds'), service).toHaveLength(1);
      expect(total(text, 'recipes_db_pool_clients'), service).toBeGreaterThanOrEqual(1);
      expect(samples(text, 'recipes_db_pool_waiting_requests'), service).toHaveLength(1);
    }
    const dlq = samples(await metricsOf('notifications'), 'recipes_dead_letter_queue_messages');
    expect(dlq).toEqual([
      { labels: { queue: 'recipes.recipes_metrics.notifications.dlq', service: 'notifications' }, value: 0 },
    ]);
  });

  it('show each consumer’s queue depth, asked by the consumer and by its publishers, and time its handlers', async () => {
    const queue = 'recipes.recipes_metrics.notifications';
    for (const service of ['notifications', 'comments']) {
      expect(
        samples(await metricsOf(service), 'recipes_event_queue_messages').filter(
          (sample) => sample.labels.queue === queue,
        ),
        service,
      ).toEqual([{ labels: { queue, service }, value: 0 }]);
    }
    const handled = { queue, type: 'comment.mention.created', outcome: 'consumed' };
    expect(
      total(await metricsOf('notifications'), 'recipes_event_handler_duration_seconds_count', handled),
    ).toBeGreaterThanOrEqual(1);
  });

  it('count the event streams notifications holds and the gateway passes through, while they are open', async () => {
    const OPEN = 'recipes_event_streams_open';
    const held = async () => {
      const [gateway, notifications] = await Promise.all([metricsOf('gateway'), metricsOf('notifications')]);
      expect(samples(gateway, OPEN)).toHaveLength(1);
      expect(samples(notifications, OPEN)).toHaveLength(1);
      return [total(gateway, OPEN), total(notifications, OPEN)];
    };
    expect(await held()).toEqual([0, 0]);
    const stream = await openEventStream(`${api}/notifications/stream`, { authorization: `Bearer ${bobsToken}` });
    expect(stream.status).toBe(200);
    await stream.next((event) => event.event === 'unread_count');
    expect(await held()).toEqual([1, 1]);
    stream.close();
    await eventually(async () => ((await held()).every((count) => count === 0) ? true : undefined));
  });

  it('never reach the public port nor the API documents', async () => {
    const response = await fetch(`${system.urlOf('gateway')}/metrics`);
    expect(response.status).toBe(404);
    expect(response.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(problemSchema.parse(await response.json()).code).toBe('NOT_FOUND');
    for (const service of system.services) {
      expect((await fetch(`${system.urlOf(service)}/metrics`)).status, service).toBe(404);
      if (service === 'gateway') continue;
      const own = await (await fetch(`${system.urlOf(service)}/openapi.json`)).json();
      expect(
        Object.keys(own.paths).filter((path) => path.includes('metrics')),
        service,
      ).toEqual([]);
    }
    const document = await (await fetch(`${system.urlOf('gateway')}/docs/json`)).json();
    const paths = Object.keys(document.paths);
    expect(paths.length).toBeGreaterThan(10);
    expect(paths.filter((path) => path.includes('metrics'))).toEqual([]);
  });
});
