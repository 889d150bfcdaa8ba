import { existsSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { dropDatabase, removeExchangeFamily } from '@recipes/testing';
import { inject } from 'vitest';
import { type StartedSystem, startSystem } from '../../scripts/system.mjs';
import { RECORD_VARIABLE } from '../../services/gateway/src/response-record.js';
import { eventChecker, type OpenApiDocument, openApiChecker, parseRecords } from './conformance.js';
import { eventTap } from './event-tap.js';
import { prismChecker } from './prism.js';

/**
 * What a system named `name` makes on the servers: its database, and the exchange `recipes.<name>` with every service's
 * queues.
 */
async function removeSystemTopology(name: string): Promise<void> {
  await removeExchangeFamily(inject('amqpUrl'), `recipes.${name}`);
  await dropDatabase(inject('databaseUrl'), name);
}

/** The `id` of an event's body, if it has one. */
function idOf(content: string): string | undefined {
  try {
    const { id } = JSON.parse(content) as { id?: unknown };
    return typeof id === 'string' ? id : undefined;
  } catch {
    return undefined;
  }
}

/** What the system's traffic has shown so far against its published contracts (docs/api.md, the event catalogue). */
export interface Conformance {
  /**
   * Each response the gateway sent that the OpenAPI document it published at the start does not describe
   * (status, media type, body), by our checker and by Stoplight Prism's (which also reads each request:
   * accepted though the document forbids it, or refused though it allows it, see prism.ts), and each event
   * seen on the system's exchange that the AsyncAPI catalogue does not (type, version, payload); one line
   * each. `stop` fails when any is left.
   */
  mismatches(): string[];
  /** Events a test publishes broken on purpose: their mismatches are kept apart, in `brokenEventsSeen`. */
  expectBrokenEvents(...ids: string[]): void;
  /** The mismatches of the events named to `expectBrokenEvents`, as the tap saw them. */
  brokenEventsSeen(): string[];
  /**
   * How much was checked: responses the gateway recorded, events the tap saw. A check that sees nothing proves nothing.
   */
  seen(): { responses: number; events: number };
}

export interface TestSystem extends StartedSystem {
  conformance: Conformance;
}

/**
 * The whole system as separate processes, on this test run's PostgreSQL and RabbitMQ. It starts on a
 * clean slate, since the broker refuses to declare again, with other arguments, a queue an interrupted
 * earlier run left; and takes its database, exchanges and queues away with it when it stops.
 *
 * Conformance is checked on the way: the gateway records every response it sends to `/api/...` (see
 * services/gateway/src/response-record.ts) and a tap on the exchange sees every event; `stop` checks each
 * response against the document the gateway published at the start and each event against the catalogue,
 * and fails the test file with the mismatches, if any.
 */
export async function startTestSystem(
  options: Omit<Parameters<typeof startSystem>[0], 'databaseUrl' | 'amqpUrl'>,
): Promise<TestSystem> {
  await removeSystemTopology(options.name);
  const recordFile = join(tmpdir(), `recipes-responses-${options.name}-${process.pid}.ndjson`);
  rmSync(recordFile, { force: true });
  let system: StartedSystem;
  try {
    system = await startSystem({
      ...options,
      env: { RESPONSE_VALIDATION: 'true', ...options.env, [RECORD_VARIABLE]: recordFile },
      databaseUrl: inject('databaseUrl'),
      amqpUrl: inject('amqpUrl'),
    });
  } catch (error) {
    // startSystem has stopped its processes; the error that matters is the one that made it fail.
    await removeSystemTopology(options.name).catch(() => undefined);
    throw error;
  }

  const checkEvent = eventChecker();
  const eventMismatches: string[] = [];
  const brokenEvents = new Set<string>();
  const brokenSeen: string[] = [];
  let eventsSeen = 0;
  let responses: ReturnType<typeof openApiChecker>;
  let prism: Awaited<ReturnType<typeof prismChecker>>;
  let tap: Awaited<ReturnType<typeof eventTap>>;
  try {
    // Each service writes its document once, when first asked: asked here without the gateway's deadline
    // (HEALTH_TIMEOUT_MS), which a busy machine can miss and leave the service out of the merge.
    await Promise.all(
      system.processes
        .filter(({ service }) => service !== 'gateway')
        .map(async ({ service, instance }) =>
          (await fetch(`${system.urlOf(service, instance)}/openapi.json`)).arrayBuffer(),
        ),
    );
    // As published now, with every service up: a test may stop one later.
    const document = (await (await fetch(`${system.urlOf('gateway')}/docs/json`)).json()) as OpenApiDocument & {
      info?: { description?: string };
    };
    if (document.info?.description?.includes('Not included'))
      throw new Error(`the gateway published an incomplete document: ${document.info.description}`);
    responses = openApiChecker(document);
    prism = await prismChecker(document);
    tap = await eventTap(inject('amqpUrl'), `recipes.${options.name}`, (event) => {
      eventsSeen += 1;
      const mismatches = checkEvent(event);
      if (brokenEvents.has(idOf(event.content) ?? '')) brokenSeen.push(...mismatches);
      else eventMismatches.push(...mismatches);
    });
  } catch (error) {
    await system.stop();
    await removeSystemTopology(options.name).catch(() => undefined);
    throw error;
  }

  const records = () => (existsSync(recordFile) ? parseRecords(readFileSync(recordFile, 'utf8')) : []);
  const conformance: Conformance = {
    mismatches: () => {
      const recorded = records();
      return [...responses.checkAll(recorded), ...prism.checkAll(recorded), ...eventMismatches];
    },
    expectBrokenEvents: (...ids) => ids.forEach((id) => brokenEvents.add(id)),
    brokenEventsSeen: () => [...brokenSeen],
    seen: () => ({ responses: records().length, events: eventsSeen }),
  };

  return {
    ...system,
    conformance,
    stop: async () => {
      const mismatches = conformance.mismatches();
      await tap.close();
      await system.stop();
      await removeSystemTopology(options.name);
      rmSync(recordFile, { force: true });
      if (mismatches.length > 0) {
        throw new Error(
          `${mismatches.length} responses or events do not conform to the published contracts:\n${mismatches.slice(0, 50).join('\n')}`,
        );
      }
    },
  };
}
