import { loadConfig, readSettingFile } from '@recipes/config';
import { assertDeclared } from '@recipes/contracts';
import { createPool, isDatabaseReachable, type Pool } from '@recipes/db';
import { type App, isDependencyUnavailable, listen } from '@recipes/http';
import { KeyPurger } from '@recipes/idempotency';
import { createLogger, type Logger } from '@recipes/logging';
import { backoff, Broker, deadLetterQueueOf, dispatcher } from '@recipes/messaging';
import {
  deadLetterQueueMetrics,
  eventMetrics,
  eventQueueMetrics,
  metricsListener,
  outboxMetrics,
  poolMetrics,
  Registry,
} from '@recipes/metrics';
import { OutboxRelay, WRITER_WAKE_SETTINGS } from '@recipes/outbox';
import { currentTraceparent } from '@recipes/tracing';
import type { BackendConfig } from './config.js';
import { composeService, type Prompts, type ServiceDefinition, type ServiceKeys } from './definition.js';
import { assertSchemaCurrent, EX_CONFIG, migrateSchema, SchemaBehindError } from './migrations.js';
import { consumerQueuesOf, queueOf } from './queues.js';

/** 0.5 s, then every 1 s: the wait between tries to reach the database at start, where it may be up for seconds only. */
const startBackoffMs = backoff({ firstMs: 250, maxMs: 1_000 });

/** How `startBackendService` is given what the environment and files hold; tests pass their own. */
export interface StartOptions<C> {
  config: C;
  keys: ServiceKeys;
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

/**
 * Runs `work` again, with a growing pause, for as long as it fails because a dependency is unavailable:
 * however long that lasts, as an instance that gave up would only be started again to wait the same.
 */
async function whileUnavailable<T>(work: () => Promise<T>, logger: Logger): Promise<T> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await work();
    } catch (err) {
      if (!isDependencyUnavailable(err)) throw err;
      const retryInMs = startBackoffMs(attempt + 1);
      logger.warn({ err, retryInMs }, 'the database is unavailable at start: waiting for it');
      await new Promise((resolve) => setTimeout(resolve, retryInMs));
    }
  }
}

/** Everything a backend service needs to serve, wired in order; listening is left to the caller. */
export async function startBackendService<C extends BackendConfig, P>(
  definition: ServiceDefinition<C, P>,
  { config, keys, logger = createLogger({ service: definition.name, level: config.LOG_LEVEL }) }: StartOptions<C>,
): Promise<RunningService> {
  const { name } = definition;

  if (config.MIGRATE_ON_START) {
    // A database restarting as the service starts is waited for (and the migrations run again whole), as it is
    // once the service runs.
    await migrateSchema(definition, config, logger);
  } else {
    // Migrations are a step of their own (migrate.js, a Job): a schema behind the code is never served.
    await whileUnavailable(() => assertSchemaCurrent(definition, config), logger);
  }

  const pool = createPool({
    connectionString: config.DATABASE_URL,
    schema: name,
    // Its relay, made next, is woken by the writes of this process (see OutboxRelay).
    settings: WRITER_WAKE_SETTINGS,
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
  const broker = new Broker({
    url: config.AMQP_URL,
    exchange: config.EVENTS_EXCHANGE,
    logger,
    name,
    metrics: eventMetrics(metrics),
    reconnectDelayMs: config.AMQP_RECONNECT_DELAY_MS,
  });
  // The queues of every consumer of what this service publishes exist before its first event goes out.
  const consumerQueues = consumerQueuesOf(name, config.EVENTS_EXCHANGE);
  const publisher = broker.createPublisher({ consumers: consumerQueues });
  const relay = new OutboxRelay({ pool, schema: name, databaseUrl: config.DATABASE_URL, publisher, logger });
  relay.start();
  // What waited in the outbox while the broker was away goes out as soon as it is back.
  broker.onConnect(
    () =>
      void relay.retryNow().catch((err: unknown) => logger.warn({ err }, 'the outbox could not be retried at once')),
  );
  // Every service keeps Idempotency-Keys in its schema for 24 hours, and drops them after.
  const keyPurger = new KeyPurger({ pool, logger });
  keyPurger.start();

  // Checked against the catalogue as an outbox row is, and sent in the trace of the handler that sends it.
  const prompts: Prompts = {
    send: (event) => {
      assertDeclared(event);
      return publisher.publish(event, { traceparent: currentTraceparent() ?? null });
    },
  };
  const { app, handlers, instanceSubscription, loadEndedSessions } = await composeService(definition, {
    config,
    keys,
    pool,
    logger,
    prompts,
    readiness: { database: () => isDatabaseReachable(pool), broker: () => broker.isConnected() },
  });
  await whileUnavailable(loadEndedSessions, logger);
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

  // Every instance has one: the ends of sessions, and what the definition adds (e.g. its streams' prompts).
  const { handlers: heard, onResumed } = instanceSubscription;
  await broker.subscribe({
    bindings: heard.map((h) => h.definition.type),
    handle: dispatcher(heard),
    ...(onResumed ? { onResumed } : {}),
  });

  poolMetrics(metrics, pool);
  outboxMetrics(metrics, () => relay.backlog());
  if (consumer) deadLetterQueueMetrics(metrics, deadLetterQueueOf(queue), (dlq) => broker.queueDepth(dlq));
  // Its own queue, and those it publishes to: a queue's depth shows while all its consumers are down.
  const watchedQueues = new Set([...(consumer ? [queue] : []), ...consumerQueues.map((q) => q.queue)]);
  eventQueueMetrics(metrics, [...watchedQueues], (watched) => broker.queueDepth(watched));
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

/**
 * How long a stopping instance keeps listening while it answers new requests "not taken": long enough for the
 * gateway, sending to it under any load, to learn it is going and send elsewhere, so that no request of the
 * gateway's is left in the listener's queue as it closes (a cut the gateway could not tell from a taken one).
 */
const STOP_NOTICE_MS = 1_000;

/**
 * A service's entry point: settings from the environment, keys from their files; start, listen, and shut down
 * gracefully on SIGTERM.
 */
export async function runService<C extends BackendConfig, P>(definition: ServiceDefinition<C, P>): Promise<void> {
  const config = loadConfig(definition.configSchema);
  const keys = {
    publicKey: readSettingFile('JWT_PUBLIC_KEY_FILE', config.JWT_PUBLIC_KEY_FILE),
    ...(config.JWT_PRIVATE_KEY_FILE
      ? { privateKey: readSettingFile('JWT_PRIVATE_KEY_FILE', config.JWT_PRIVATE_KEY_FILE) }
      : {}),
  };
  const logger = createLogger({ service: definition.name, level: config.LOG_LEVEL });
  const { app } = await startBackendService(definition, { config, keys, logger }).catch((err: unknown) => {
    if (!(err instanceof SchemaBehindError)) throw err;
    // One line that says what to do, and an exit a supervisor or an orchestrator shows as a failed start.
    logger.fatal({ missing: err.missing }, err.message);
    process.exit(EX_CONFIG);
  });
  const { HOST, PORT, METRICS_PORT, INTERNAL_PORT, SHUTDOWN_TIMEOUT_MS } = config;
  await listen(app, {
    host: HOST,
    port: PORT,
    metricsPort: METRICS_PORT,
    internalPort: INTERNAL_PORT,
    shutdownTimeoutMs: SHUTDOWN_TIMEOUT_MS,
    stopNoticeMs: STOP_NOTICE_MS,
  });
}
