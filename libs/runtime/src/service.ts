import { createPool, isDatabaseReachable, migrate, type MigrationSet, type Pool } from '@recipes/db';
import { type App, isDependencyUnavailable, listen, type ReadinessChecks } from '@recipes/http';
import { idempotencyMigrations, KeyPurger } from '@recipes/idempotency';
import { createLogger, type Logger } from '@recipes/logging';
import { Broker, deadLetterQueueOf } from '@recipes/messaging';
import { deadLetterQueueMetrics, eventMetrics, metricsListener, outboxMetrics, poolMetrics, Registry } from '@recipes/metrics';
import { OutboxRelay, outboxMigrations } from '@recipes/outbox';
import { dispatcher, type EventHandler } from './handlers.js';
import { consumerQueuesOf, queueOf } from './queues.js';

/** The settings every backend service reads (see `backendEnv` in @recipes/config). */
export interface BackendConfig {
  HOST: string;
  PORT: number;
  /** Where `runBackendService` serves `/metrics` for Prometheus, apart from the API. */
  METRICS_PORT?: number;
  /** Where the routes for the other services listen, for a service that has them (see `internalApp` in @recipes/http). */
  INTERNAL_PORT?: number;
  LOG_LEVEL: string;
  SHUTDOWN_TIMEOUT_MS: number;
  DATABASE_URL: string;
  DATABASE_POOL_MAX: number;
  DATABASE_STATEMENT_TIMEOUT_MS: number;
  DATABASE_LOCK_TIMEOUT_MS: number;
  DATABASE_IDLE_IN_TRANSACTION_TIMEOUT_MS: number;
  AMQP_URL: string;
  EVENTS_EXCHANGE: string;
  EVENT_MAX_ATTEMPTS: number;
  EVENT_RETRY_DELAYS_MS: readonly number[];
  MIGRATE_ON_START: boolean;
}

export interface ServiceContext {
  pool: Pool;
  logger: Logger;
  readiness: ReadinessChecks;
}

/** What a service is made of once its pool and logger exist. */
export interface ServiceParts {
  app: App;
  /** The events it consumes, each idempotent (see `handleOnce` in @recipes/outbox). */
  handlers?: EventHandler[];
}

export interface BackendServiceDefinition {
  /** The service's name: also its schema, its queue and its producer name. */
  name: string;
  config: BackendConfig;
  /** The service's own SQL migrations. */
  migrationsDir: string;
  /** Tables of libraries the service uses (e.g. the user directory), migrated into its schema first. */
  sharedMigrations?: MigrationSet[];
  /** Builds the HTTP app and the event handlers, which may share objects made from the pool. */
  compose(context: ServiceContext): Promise<ServiceParts>;
  /** Tests pass a logger to read or silence the lines. */
  logger?: Logger;
}

export interface RunningService {
  app: App;
  pool: Pool;
  relay: OutboxRelay;
  /** Stops consuming, lets handlers and requests finish, stops the relay, then closes broker and pool. */
  close(): Promise<void>;
}

const STARTUP_PATIENCE_MS = 120_000;

/** Runs `work` again, with a growing pause, for as long as it fails because a dependency is unavailable. */
async function whileUnavailable<T>(work: () => Promise<T>, logger: Logger): Promise<T> {
  const deadline = Date.now() + STARTUP_PATIENCE_MS;
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await work();
    } catch (err) {
      if (!isDependencyUnavailable(err) || Date.now() > deadline) throw err;
      const retryInMs = Math.min(250 * 2 ** attempt, 5_000);
      logger.warn({ err, retryInMs }, 'the database is unavailable at start: waiting for it');
      await new Promise((resolve) => setTimeout(resolve, retryInMs));
    }
  }
}

/** Everything a backend service needs to serve, wired in order; listening is left to the caller. */
export async function startBackendService(definition: BackendServiceDefinition): Promise<RunningService> {
  const { name, config } = definition;
  const logger = definition.logger ?? createLogger({ service: name, level: config.LOG_LEVEL });

  if (config.MIGRATE_ON_START) {
    const sets = [outboxMigrations, idempotencyMigrations, ...(definition.sharedMigrations ?? []), { dir: definition.migrationsDir, table: 'migrations' }];
    // A database restarting as the service starts is waited for, as it is once the service runs.
    await whileUnavailable(() => migrate({ databaseUrl: config.DATABASE_URL, schema: name, sets, logger }), logger);
  }

  const pool = createPool({
    connectionString: config.DATABASE_URL,
    schema: name,
    max: config.DATABASE_POOL_MAX,
    applicationName: name,
    logger,
    timeouts: {
      statementMs: config.DATABASE_STATEMENT_TIMEOUT_MS,
      lockMs: config.DATABASE_LOCK_TIMEOUT_MS,
      idleInTransactionMs: config.DATABASE_IDLE_IN_TRANSACTION_TIMEOUT_MS,
    },
  });
  const metrics = new Registry();
  const broker = new Broker({ url: config.AMQP_URL, exchange: config.EVENTS_EXCHANGE, logger, name, metrics: eventMetrics(metrics) });
  // The queues of every consumer of what this service publishes exist before its first event goes out.
  const publisher = broker.createPublisher({ consumers: consumerQueuesOf(name, config.EVENTS_EXCHANGE) });
  const relay = new OutboxRelay({ pool, schema: name, databaseUrl: config.DATABASE_URL, publisher, logger });
  relay.start();
  // Every service keeps Idempotency-Keys in its schema for 24 hours, and drops them after.
  const keyPurger = new KeyPurger({ pool, logger });
  keyPurger.start();

  const { app, handlers = [] } = await definition.compose({
    pool,
    logger,
    readiness: { database: () => isDatabaseReachable(pool), broker: () => broker.isConnected() },
  });
  // One queue per service, bound to every type it handles (docs/architecture.md §5).
  const queue = queueOf(config.EVENTS_EXCHANGE, name);
  const consumer =
    handlers.length > 0
      ? await broker.consume({
          queue,
          bindings: [...new Set(handlers.map((h) => h.definition.type))],
          maxAttempts: config.EVENT_MAX_ATTEMPTS,
          retryDelaysMs: config.EVENT_RETRY_DELAYS_MS,
          // A database that is away, or an owner whose look-up cannot be answered, is waited for, never an attempt.
          isReady: () => isDatabaseReachable(pool),
          isTransient: isDependencyUnavailable,
          handle: dispatcher(handlers),
        })
      : undefined;

  poolMetrics(metrics, pool);
  outboxMetrics(metrics, () => relay.backlog());
  if (consumer) deadLetterQueueMetrics(metrics, deadLetterQueueOf(queue), (dlq) => broker.queueDepth(dlq));
  await app.register(metricsListener, { labels: { service: name }, registries: [metrics, app.metricsRegistry] });

  app.addHook('onClose', async () => {
    await consumer?.close();
    await relay.stop();
    await keyPurger.stop();
    await broker.close();
    await pool.end();
  });
  await app.ready();

  return { app, pool, relay, close: () => app.close() };
}

/** A service's entry point: start, listen, and shut down gracefully on SIGTERM. */
export async function runBackendService(definition: BackendServiceDefinition): Promise<void> {
  const { app } = await startBackendService(definition);
  const { HOST, PORT, METRICS_PORT, INTERNAL_PORT, SHUTDOWN_TIMEOUT_MS } = definition.config;
  await listen(app, { host: HOST, port: PORT, metricsPort: METRICS_PORT, internalPort: INTERNAL_PORT, shutdownTimeoutMs: SHUTDOWN_TIMEOUT_MS });
}
