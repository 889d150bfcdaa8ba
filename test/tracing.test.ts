import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { eventually } from '@recipes/testing';
import { type EventStreamClient, openEventStream } from '@recipes/testing/sse';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StartedSystem } from '../scripts/system.mjs';
import { type JsonCall, jsonClient } from './support/http.js';
import { startTestSystem } from './support/system.js';

/**
 * Traces with OpenTelemetry (libs/tracing), as an OTLP backend receives them: every process exports to a
 * small OTLP/HTTP receiver here (http/json), and a mentioned comment, from the gateway to the frame on the
 * mentioned user's stream, is one trace across the outboxes and the broker.
 */

interface OtlpAttribute {
  key: string;
  value: { stringValue?: string; intValue?: string | number; boolValue?: boolean };
}

interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  attributes?: OtlpAttribute[];
}

/** A span as received, with the service that sent it and the instrumentation that made it. */
interface ReceivedSpan extends OtlpSpan {
  service: string;
  scope: string;
}

interface OtlpTraces {
  resourceSpans?: {
    resource?: { attributes?: OtlpAttribute[] };
    scopeSpans?: { scope?: { name?: string }; spans?: OtlpSpan[] }[];
  }[];
}

const spans: ReceivedSpan[] = [];
let receiver: Server;
let system: StartedSystem;
let api: string;
let call: JsonCall;
const streams: EventStreamClient[] = [];

/** An OTLP/HTTP receiver: every span POSTed to /v1/traces as JSON, kept in `spans`. */
async function startReceiver(): Promise<Server> {
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      if (request.method !== 'POST' || request.url !== '/v1/traces') {
        response.writeHead(404).end();
        return;
      }
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as OtlpTraces;
      for (const { resource, scopeSpans = [] } of body.resourceSpans ?? []) {
        const service =
          resource?.attributes?.find((attribute) => attribute.key === 'service.name')?.value.stringValue ?? '';
        for (const { scope, spans: received = [] } of scopeSpans) {
          for (const span of received) spans.push({ ...span, service, scope: scope?.name ?? '' });
        }
      }
      response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((listening) => server.listen(0, '127.0.0.1', listening));
  return server;
}

const attribute = (span: OtlpSpan, key: string) => span.attributes?.find((a) => a.key === key)?.value.stringValue;
/** The SQL of a PostgreSQL span, under the old or the new semantic convention. */
const statementOf = (span: OtlpSpan) => attribute(span, 'db.statement') ?? attribute(span, 'db.query.text') ?? '';

/** Where the test's calls come from: an address of their own, which the spans and log lines must name. */
const CLIENT_ADDRESS = '127.57.0.1';

beforeAll(async () => {
  receiver = await startReceiver();
  system = await startTestSystem({
    name: 'recipes_tracing',
    portOffset: 5700,
    logs: 'pipe',
    env: {
      OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`,
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      OTEL_BSP_SCHEDULE_DELAY: '100',
      // Lines at info, which the requests and handlers write: each must carry its span's ids.
      LOG_LEVEL: 'info',
    },
  });
  api = `${system.urlOf('gateway')}/api`;
  call = jsonClient(api, { localAddress: CLIENT_ADDRESS });
}, 60_000);

afterAll(async () => {
  for (const stream of streams) stream.close();
  await system?.stop();
  await new Promise((closed) => receiver?.close(closed));
});

describe('tracing', () => {
  it('follows a mentioned comment in one trace from the gateway to the frame on the stream', async () => {
    const [ada, bob] = await Promise.all(
      ['trace_ada', 'trace_bob'].map(
        async (username) => (await call('POST', '/auth/register', { username, password: 'correct horse' })).body,
      ),
    );
    const recipe = await call(
      'POST',
      '/recipes',
      { title: 'Traced', cameraModel: 'X100V', filmSimulation: 'Acros' },
      ada.token,
    );
    expect(recipe.status).toBe(201);
    const stream = await openEventStream(`${api}/notifications/stream`, { authorization: `Bearer ${bob.token}` });
    streams.push(stream);
    await stream.next((event) => event.event === 'unread_count', 5_000);

    const comment = await call(
      'POST',
      `/recipes/${recipe.body.recipe.id}/comments`,
      { content: 'Look, @trace_bob' },
      ada.token,
    );
    expect(comment.status).toBe(201);
    await stream.next((event) => event.event === 'notification', 10_000);

    // The trace: the one the gateway's span of the POST is in.
    const path = `/api/recipes/${recipe.body.recipe.id}/comments`;
    const root = await eventually(
      async () =>
        spans.find(
          (span) =>
            span.service === 'gateway' &&
            span.kind === 2 &&
            (attribute(span, 'url.path') ?? attribute(span, 'http.target')) === path,
        ),
      10_000,
    );
    const inTrace = () => spans.filter((span) => span.traceId === root.traceId);
    const has = (service: string, test: (span: ReceivedSpan) => boolean) =>
      inTrace().some((span) => span.service === service && test(span));
    const expected = {
      'the comments service serving the POST': () =>
        has('comments', (span) => span.kind === 2 && span.scope.includes('http')),
      'the comment written to PostgreSQL': () =>
        has('comments', (span) => statementOf(span).includes('INSERT INTO comments')),
      'the mention event published to RabbitMQ': () =>
        has('comments', (span) => span.scope.includes('amqplib') && span.kind === 4),
      'the notifications service consuming it': () =>
        has('notifications', (span) => span.scope.includes('amqplib') && span.kind === 5),
      'its handler': () => has('notifications', (span) => span.name.endsWith('handle comment.mention.created')),
      'the notification written to PostgreSQL': () =>
        has('notifications', (span) => /store_notifications?\(/.test(statementOf(span))),
      'the notification event published': () =>
        has('notifications', (span) => span.scope.includes('amqplib') && span.kind === 4),
      'its consumer for the streams': () =>
        has('notifications', (span) => span.name.endsWith('handle notification.created')),
      'the frame written to the stream': () =>
        has('notifications', (span) => span.name === 'notification stream write'),
    };
    const missing = () => Object.entries(expected).flatMap(([what, found]) => (found() ? [] : [what]));
    // Each process sends its spans in its own time (OTEL_BSP_SCHEDULE_DELAY): the barrier is the last hop's.
    await eventually(async () => (missing().length === 0 ? true : undefined), 15_000).catch(() => undefined);
    expect(missing()).toEqual([]);

    // Parent links intact: every span's parent is in the trace, but the root's (the gateway's), which has
    // none. A parent may still be on its way from its process: the orphans are looked at until none is left.
    const orphans = () => {
      const ids = new Set(inTrace().map((span) => span.spanId));
      return inTrace().filter((span) => span.parentSpanId && !ids.has(span.parentSpanId));
    };
    await eventually(async () => (orphans().length === 0 ? true : undefined), 10_000).catch(() => undefined);
    expect(orphans().map((span) => `${span.service}: ${span.name}`)).toEqual([]);
    const roots = inTrace().filter((span) => !span.parentSpanId);
    expect(roots.map((span) => `${span.service}: ${span.name}`)).toEqual([`gateway: ${root.name}`]);

    // Logs and traces join: the lines written in the trace's spans carry its id and their span's.
    const spanIds = new Set(inTrace().map((span) => span.spanId));
    const logged = system.processes.flatMap((process) =>
      process.lines.flatMap((line) => {
        const entry = JSON.parse(line) as {
          service: string;
          msg: string;
          trace_id?: string;
          span_id?: string;
          req?: { remoteAddress?: string };
        };
        return entry.trace_id === root.traceId ? [entry] : [];
      }),
    );
    // The gateway and comments log each request at info (notifications' handlers log nothing at info).
    expect([...new Set(logged.map((entry) => entry.service))].sort()).toEqual(['comments', 'gateway']);
    for (const entry of logged) expect(spanIds, entry.msg).toContain(entry.span_id);

    // Both name the client, as the gateway saw it and handed it on, in their request span and their request line.
    for (const service of ['gateway', 'comments']) {
      expect(
        inTrace().filter((span) => span.service === service && attribute(span, 'client.address') === CLIENT_ADDRESS),
        service,
      ).not.toEqual([]);
      const requestLines = logged.filter((entry) => entry.service === service && entry.msg === 'request completed');
      expect(requestLines.length, service).toBeGreaterThan(0);
      for (const entry of requestLines) expect(entry.req?.remoteAddress, service).toBe(CLIENT_ADDRESS);
    }
  });
});
