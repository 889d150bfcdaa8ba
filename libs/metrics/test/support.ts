import { randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { createEvent, userCreated, type EventEnvelope } from '@recipes/contracts';
import { createLogger } from '@recipes/logging';
import type { FastifyInstance } from 'fastify';

/** Silent unless LOG_LEVEL is set. */
export const logger = createLogger({ service: 'metrics-test', level: process.env.LOG_LEVEL ?? 'silent' });

export function userEvent(): EventEnvelope {
  return createEvent(
    userCreated,
    { id: randomUUID(), username: 'ada', avatarUrl: null, revision: 0 },
    { producer: 'users', correlationId: `req-${randomUUID()}` },
  );
}

export interface Sample {
  labels: Record<string, string>;
  value: number;
}

/** The samples of one series name in Prometheus' text format, e.g. `recipes_http_request_duration_seconds_count`. */
export function samples(text: string, name: string): Sample[] {
  return text.split('\n').flatMap((line) => {
    const match = /^([A-Za-z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!match || match[1] !== name) return [];
    const labels = Object.fromEntries(
      [...(match[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map((m) => [m[1]!, m[2]!]),
    );
    return [{ labels, value: Number(match[3]) }];
  });
}

/** The value of the one sample of `name` whose labels include `labels`; undefined when there is none. */
export function valueOf(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  return samples(text, name).find((sample) =>
    Object.entries(labels).every(([key, value]) => sample.labels[key] === value),
  )?.value;
}

/** Where the metrics listener of `app` answers. */
export function metricsUrlOf(app: FastifyInstance): string {
  const { port } = app.metricsServer.server.address() as AddressInfo;
  return `http://127.0.0.1:${port}/metrics`;
}

export async function scrape(url: string): Promise<{ status: number; contentType: string | null; text: string }> {
  const response = await fetch(url);
  return { status: response.status, contentType: response.headers.get('content-type'), text: await response.text() };
}
