import { fileURLToPath } from 'node:url';
import { authPlugin, EndedSessions } from '@recipes/auth';
import type { EventDefinition, EventEnvelope } from '@recipes/contracts';
import type { MigrationSet, Pool } from '@recipes/db';
import { type App, createApp, internalApp, type ReadinessChecks } from '@recipes/http';
import { idempotencyMigrations } from '@recipes/idempotency';
import type { Logger } from '@recipes/logging';
import type { EventHandler } from '@recipes/messaging';
import { outboxMigrations } from '@recipes/outbox';
import type { z } from 'zod';
import type { BackendConfig } from './config.js';
import { endedSessionsMigrations, sessionEnds } from './ended-sessions.js';

/** The key pair tokens are checked with; only the service that issues tokens holds the private half. */
export interface ServiceKeys {
  publicKey: string;
  privateKey?: string;
}

/** An event type a service writes to its outbox, and where: a function, or a trigger in a named migration. */
export interface PublishedEvent {
  event: EventDefinition;
  from: string;
}

/**
 * Events that only prompt every instance to read what changed from the database (e.g. a stream's wake-up), so
 * that one lost costs a delay, never a fact: sent straight to the broker with a confirm, with no outbox row and no
 * relay. A handler that sends one before its event is acked sends it again when the event comes again.
 */
export interface Prompts {
  send(event: EventEnvelope): Promise<void>;
}

/** For what composes a service without running it (its OpenAPI document, the catalogue check): nothing to send. */
export const promptsUnsent: Prompts = {
  send: () => Promise.reject(new Error('prompts are not sent here: no broker')),
};

/** What a service's parts are made from, at run time and in its tests alike. */
export interface PartsContext<C> {
  config: C;
  pool: Pool;
  logger: Logger;
  keys: ServiceKeys;
  /** The ended sessions this process knows of (docs/api.md §11.1): the auth plugin refuses their tokens. */
  endedSessions: EndedSessions;
  prompts: Prompts;
}

/**
 * Everything that makes a backend service what it is, in one value (`src/service.ts` of each service): the
 * runtime runs it (`runService`) and the tests build it through the same steps (`serviceHarness` in
 * @recipes/testing). `P` is the service's domain, made once from the pool and shared by routes and handlers.
 */
export interface ServiceDefinition<C extends BackendConfig = BackendConfig, P = unknown> {
  /** Also the service's schema, queue and producer name. */
  name: string;
  /** One line for the OpenAPI document. */
  description: string;
  configSchema: z.ZodType<C>;
  /** The folder of the service's own SQL migrations. */
  migrations: URL;
  /** Tables of libraries the service uses (e.g. a directory), migrated into its schema before its own. */
  sharedMigrations?: MigrationSet[];
  /** The event types it produces (`src/events/published.ts`). */
  publishes: readonly PublishedEvent[];
  parts(context: PartsContext<C>): P;
  /** The public routes, under `/api`. */
  routes(app: App, parts: P, config: C): Promise<void>;
  /** The routes only the other services call, on the internal listener (see `internalApp` in @recipes/http). */
  internalRoutes?(internal: App, parts: P): Promise<void>;
  /** The events it consumes (`src/events/handlers/`), each idempotent. */
  handlers?(parts: P): EventHandler[];
  /** Events each instance hears on a queue of its own, for what it alone holds (e.g. open streams). */
  instanceSubscription?(parts: P): InstanceSubscription;
  /**
   * It serves event streams that the gateway proxies: its public port then also speaks HTTP/2 with prior
   * knowledge (h2c, libs/http/src/cleartext-http2.ts), over which the gateway carries every stream it holds
   * to the instance on one connection instead of a socket each (bench/micro/stream-connections.mjs: 2,000
   * streams on 1 socket and 19.4 KB a stream at the gateway, against 2,000 sockets and 28.7 - 29.3 KB).
   */
  servesStreams?: boolean;
}

export interface InstanceSubscription {
  handlers: EventHandler[];
  /**
   * After the broker came back: what was published meanwhile was not heard (see `startSubscription` in
   * @recipes/messaging).
   */
  onResumed?(): void;
}

/** Names a service definition, keeping its config and parts types. */
export function defineService<C extends BackendConfig, P>(
  definition: ServiceDefinition<C, P>,
): ServiceDefinition<C, P> {
  return definition;
}

/** Every migration set of a service's schema, in the order they are applied. */
export function migrationSetsOf(
  definition: Pick<ServiceDefinition, 'migrations' | 'sharedMigrations'>,
): MigrationSet[] {
  return [
    outboxMigrations,
    idempotencyMigrations,
    endedSessionsMigrations,
    ...(definition.sharedMigrations ?? []),
    { dir: fileURLToPath(definition.migrations), table: 'migrations' },
  ];
}

export interface ComposeContext<C> extends Omit<PartsContext<C>, 'endedSessions'> {
  readiness?: ReadinessChecks;
}

/** What a definition comes to once its pool exists: the app with its routes, and the handlers of its queue. */
export interface ComposedService<P> {
  app: App;
  parts: P;
  handlers: EventHandler[];
  instanceSubscription: InstanceSubscription;
  /**
   * Reads the ended sessions kept in the schema; before the first request, so that a session ended before this process
   * started is refused too.
   */
  loadEndedSessions(): Promise<void>;
}

/** Builds the HTTP app (public and internal routes) and the event handlers around one set of parts. */
export async function composeService<C extends BackendConfig, P>(
  definition: ServiceDefinition<C, P>,
  context: ComposeContext<C>,
): Promise<ComposedService<P>> {
  const { config, logger, readiness } = context;
  const endedSessions = new EndedSessions();
  const ends = sessionEnds(definition.name, context.pool, endedSessions, logger);
  const parts = definition.parts({ ...context, endedSessions });
  const app = await createApp({
    title: definition.name,
    description: definition.description,
    logger,
    trustProxy: config.TRUST_PROXY,
    validateResponses: config.RESPONSE_VALIDATION,
    acceptH2c: definition.servesStreams === true,
    readinessCacheMs: config.HEALTH_CACHE_MS,
    clientTimeouts: { headersMs: config.CLIENT_HEADERS_TIMEOUT_MS, requestMs: config.CLIENT_REQUEST_TIMEOUT_MS },
    ...(readiness ? { readiness } : {}),
  });
  await app.register(authPlugin, {
    publicKey: context.keys.publicKey,
    issuer: config.JWT_ISSUER,
    audience: config.JWT_AUDIENCE,
    endedSessions,
  });
  ends.start();
  app.addHook('onClose', async () => ends.stop());
  await definition.routes(app, parts, config);
  if (definition.internalRoutes) {
    const internal = await internalApp(app, {
      title: definition.name,
      logger,
      validateResponses: config.RESPONSE_VALIDATION,
      readinessCacheMs: config.HEALTH_CACHE_MS,
      ...(readiness ? { readiness } : {}),
    });
    await definition.internalRoutes(internal, parts);
  }
  const own = definition.instanceSubscription?.(parts);
  const instanceSubscription: InstanceSubscription = {
    handlers: [...(own?.handlers ?? []), ...ends.heard],
    onResumed: () => {
      own?.onResumed?.();
      void ends.catchUp();
    },
  };
  return {
    app,
    parts,
    handlers: [...(definition.handlers?.(parts) ?? []), ...ends.durable],
    instanceSubscription,
    loadEndedSessions: ends.load,
  };
}
