import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  MatchersV3,
  MessageProviderPact,
  PactV3,
  SpecificationVersion,
  Verifier,
  type VerifierOptions,
} from '@pact-foundation/pact';
import { createEvent, type EventEnvelope, newId, userDeleted } from '@recipes/contracts';
import { type App, internalServerOf } from '@recipes/http';
import { expect } from 'vitest';

// The pact tooling reports usage over the network unless told not to; here there is no network to use.
process.env.PACT_DO_NOT_TRACK ??= 'true';

/** Where consumer tests write pacts and provider tests read them; made anew by every test run. */
export const pactsDir = fileURLToPath(new URL('../../../pacts', import.meta.url));

const servicesDir = fileURLToPath(new URL('../../../services', import.meta.url));
const isService = (name: string) => existsSync(join(servicesDir, name));

/**
 * Pact names: a service's events and its internal HTTP API are different providers, because one pact
 * name must not mix message and HTTP interactions.
 */
export const pactNames = {
  events: (service: string) => `${service}-events`,
  api: (service: string) => `${service}-api`,
};

/**
 * A pact of `consumer` with `provider`'s HTTP API (PactV3, written as V4), its file started afresh:
 * PactV3 merges into an existing file, which would keep interactions this run no longer has.
 */
export function freshHttpPact(consumer: string, provider: string): PactV3 {
  rmSync(join(pactsDir, `${consumer}-${provider}.json`), { force: true });
  return new PactV3({
    consumer,
    provider,
    dir: pactsDir,
    logLevel: 'warn',
    spec: SpecificationVersion.SPECIFICATION_VERSION_V4,
  });
}

const ISO_MILLIS = '^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}\\.\\d{3}Z$';

/**
 * What a consumer expects of an event: exactly this type, version and producer; any UUID id; any
 * timestamp; `data` shaped like `example` (same fields, same JSON types).
 */
export function eventMessage(definition: { type: string; version: number; producer: string }, example: object) {
  const { like, regex, uuid } = MatchersV3;
  return {
    id: uuid('0190f5a4-1c2d-7e3f-8a9b-0c1d2e3f4a5b'),
    type: definition.type,
    version: definition.version,
    occurredAt: regex(ISO_MILLIS, '2026-11-22T10:00:00.000Z'),
    producer: definition.producer,
    correlationId: like('req-1'),
    data: like(example),
  };
}

/** The pact files in which `provider` is the provider, written by this run's consumer tests. */
export function pactsForProvider(provider: string): string[] {
  if (!existsSync(pactsDir)) return [];
  return readdirSync(pactsDir)
    .filter((file) => file.endsWith(`-${provider}.json`))
    .map((file) => join(pactsDir, file));
}

/**
 * Verifies the internal API of `app` as `provider` against every consumer's pact of this run: the
 * consumers' tests write theirs first, so there is at least one. `stateHandlers` set up what each
 * interaction's provider state names, and may give the values the consumer takes from it (e.g. an `id`).
 */
export async function verifyInternalApi(
  app: App,
  provider: string,
  stateHandlers: NonNullable<VerifierOptions['stateHandlers']>,
): Promise<void> {
  const pactUrls = pactsForProvider(provider);
  expect(pactUrls.length).toBeGreaterThan(0);
  const providerBaseUrl = await internalServerOf(app).listen({ host: '127.0.0.1', port: 0 });
  await new Verifier({ provider, providerBaseUrl, pactUrls, logLevel: 'warn', stateHandlers }).verifyProvider();
}

/** One message of a message pact: who expects it, how they describe it, and the example event it holds. */
export interface PactMessage {
  consumer: string;
  description: string;
  /** The example body: for our events, an envelope with `type` and `data`. */
  example: { type?: string; data?: unknown };
}

/** The messages of message pact files, V3 (`messages`) or V4 (`interactions`, body under `contents.content`). */
export function pactMessages(pactFiles: string[]): PactMessage[] {
  return pactFiles.flatMap((file) => {
    const pact = JSON.parse(readFileSync(file, 'utf8'));
    const messages: Array<{ description: string; contents?: { content?: unknown } }> =
      pact.messages ?? pact.interactions ?? [];
    return messages.map((message) => ({
      consumer: pact.consumer.name,
      description: message.description,
      example: ((pact.messages ? message.contents : message.contents?.content) ?? {}) as PactMessage['example'],
    }));
  });
}

/** Makes one event of a type through the real app; the consumer's example data may pick between situations. */
export type EventProducer = (exampleData: unknown) => Promise<unknown>;

/**
 * `messageProviders` for MessageProviderPact, whatever the consumers called their messages: each
 * description maps to the producer of the event type its example carries, given the example's data
 * (e.g. a tag in a post rather than a recipe). A type without a producer gets no entry, so its
 * verification fails ("No handler found"). Pact finds the producer by description alone: messages
 * that need different situations need different descriptions.
 */
export function messageProvidersByType(
  pactFiles: string[],
  producers: Record<string, EventProducer>,
): Record<string, () => Promise<unknown>> {
  return Object.fromEntries(
    pactMessages(pactFiles).flatMap(({ description, example }) => {
      const produce = example.type === undefined ? undefined : producers[example.type];
      return produce ? [[description, () => produce(example.data)]] : [];
    }),
  );
}

/**
 * "consumer: event type" for each event of `producer` whose consumer, as the catalogue lists it, exists
 * as a service here but has no message for that type in `pactFiles`: a consumer that forgot its pact.
 */
export function missingConsumerPacts(
  catalogue: readonly { type: string; producer: string; consumers: readonly string[] }[],
  producer: string,
  pactFiles: string[],
  exists: (service: string) => boolean = isService,
): string[] {
  const covered = new Set(pactMessages(pactFiles).map(({ consumer, example }) => `${consumer}: ${example.type}`));
  return catalogue
    .filter((event) => event.producer === producer)
    .flatMap((event) => event.consumers.filter(exists).map((consumer) => `${consumer}: ${event.type}`))
    .filter((expected) => !covered.has(expected));
}

/**
 * Verifies `provider`'s events against every consumer's pact in `pactFiles`, this run's: the consumers'
 * tests write theirs first, so there is at least one. Each message is made by `producers` (see
 * `messageProvidersByType`).
 */
export async function verifyEventsProvider(
  provider: string,
  pactFiles: string[],
  producers: Record<string, EventProducer>,
): Promise<void> {
  expect(pactFiles.length).toBeGreaterThan(0);
  await new MessageProviderPact({
    provider,
    pactUrls: pactFiles,
    messageProviders: messageProvidersByType(pactFiles, producers),
    logLevel: 'warn',
  }).verify();
}

/** "consumer: event type" for each message of `pactFiles` whose type none of `producers` makes. */
export function unmadeMessages(pactFiles: string[], producers: Record<string, EventProducer>): string[] {
  return pactMessages(pactFiles)
    .filter(({ example }) => !(example.type !== undefined && example.type in producers))
    .map(({ consumer, example }) => `${consumer}: ${example.type}`);
}

/**
 * The confirmation (`<service>.user.erased`) an erasing service writes once it has erased the user a
 * `user.deleted` names, handed to it with `deliver`; read back from its outbox as the relay would publish it.
 */
export async function erasureConfirmation(
  harness: {
    deliver(event: EventEnvelope): Promise<void>;
    pool: { query(sql: string, params: unknown[]): Promise<{ rows: Array<{ payload: unknown }> }> };
  },
  service: string,
): Promise<unknown> {
  const userId = newId();
  const now = new Date().toISOString();
  await harness.deliver(
    createEvent(
      userDeleted,
      { userId, deletedAt: now, sessionIds: [], tokensExpireBy: now },
      { producer: 'users', correlationId: 'erasure' },
    ),
  );
  const { rows } = await harness.pool.query(
    "SELECT payload FROM outbox WHERE type = $1 AND payload->'data'->>'userId' = $2",
    [`${service}.user.erased`, userId],
  );
  expect(rows).toHaveLength(1);
  return rows[0]!.payload;
}
