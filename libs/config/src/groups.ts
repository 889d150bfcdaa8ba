import { z } from 'zod';
import { env } from './env.js';

/*
 * The setting groups the services share. Each setting's `.describe()` is its line in
 * docs/configuration.md, which `npm run docs` writes from these schemas and `npm run lint` holds to them:
 * a setting is written here (or in a service's src/config.ts) and nowhere else.
 */

/** Variables every process reads, the gateway's too. */
export const serviceEnv = {
  HOST: env.string('127.0.0.1').describe('address to listen on'),
  TRUST_PROXY: env
    .trustedProxies('loopback')
    .describe(
      "peers whose `X-Forwarded-For` is believed (proxy-addr syntax, or `none`), since the client's address " +
        "decides rate limits: at a service, the gateway. Anyone else's header is replaced by their own address",
    ),
  LOG_LEVEL: env.logLevel().describe('`fatal` … `trace`, or `silent`'),
  SHUTDOWN_TIMEOUT_MS: env.positiveInt(10_000).describe('time in-flight work gets on SIGTERM'),
  RESPONSE_VALIDATION: env
    .flag(false)
    .describe(
      'check every response against its zod schema before sending it (the tests turn it ' +
        'on); off, responses are only serialized from the schema (fast-json-stringify)',
    ),
  CLIENT_HEADERS_TIMEOUT_MS: env
    .positiveInt(5_000)
    .describe(
      'a request whose headers have not all arrived this long after its first byte is ' +
        'answered `408` and its connection closed (at most `CLIENT_REQUEST_TIMEOUT_MS`)',
    ),
  CLIENT_REQUEST_TIMEOUT_MS: env
    .positiveInt(10_000)
    .describe(
      'a request whose headers and body have not all arrived this long after its first byte is answered `408` and its connection ' +
        'closed, so that slow clients cannot hold the sockets; an event stream, whose request is whole at once, is never cut by it',
    ),
  HEALTH_CACHE_MS: z.coerce
    .number()
    .int()
    .min(0)
    .default(1_000)
    .describe(
      "how long a readiness answer is reused: a service's `/health/ready` (its database " +
        "and broker checks) and the gateway's `/health` (its round of every service's " +
        '`/health/ready`); callers meanwhile share one round, so a flood of probes costs the ' +
        'dependencies one round per period; `0` only shares the round under way',
    ),
};

/** The ports a process listens on, with its own defaults. */
export const portsEnv = (defaults: { PORT: number; METRICS_PORT: number }) => ({
  PORT: env.port(defaults.PORT).describe('port of the public API'),
  METRICS_PORT: env.port(defaults.METRICS_PORT).describe('port of `GET /metrics` for Prometheus; never the public one'),
});

/** The port of the routes only the other services call (`/internal/...`), for a service that has them. */
export const internalPortEnv = (port: number) => ({
  INTERNAL_PORT: env
    .port(port)
    .describe('port of the routes only the other services call; never the public one, never a target of the gateway'),
});

/** Variables of a service that owns a schema and talks over RabbitMQ. */
export const backendEnv = {
  ...serviceEnv,
  DATABASE_URL: env
    .url('postgres://postgres@127.0.0.1:5432/recipes')
    .describe('PostgreSQL; each service uses only its own schema'),
  MIGRATION_DATABASE_URL: z
    .url()
    .optional()
    .describe(
      'PostgreSQL as a role that may change the schema (DDL), for migrations only (`migrate.js`, or ' +
        '`MIGRATE_ON_START`); unset, `DATABASE_URL`, which then needs those rights (docs/operations.md, "Database roles")',
    ),
  DATABASE_POOL_MAX: env
    .positiveInt(10)
    .describe(
      'connections per process, besides its one or two LISTEN connections; with many instances, keep their sum ' +
        'under PostgreSQL\'s `max_connections` (docs/operations.md, "The connection budget")',
    ),
  DATABASE_STATEMENT_TIMEOUT_MS: env
    .positiveInt(5_000)
    .describe(
      "server-side limit of every statement: one that runs longer is cancelled and its request answered `503`, well before the gateway's `UPSTREAM_TIMEOUT_MS`",
    ),
  DATABASE_LOCK_TIMEOUT_MS: env
    .positiveInt(2_000)
    .describe(
      'server-side limit of every wait for a lock: one that waits longer is cancelled and its request answered `503`',
    ),
  DATABASE_IDLE_IN_TRANSACTION_TIMEOUT_MS: env
    .positiveInt(30_000)
    .describe('a transaction left idle this long is ended by the server'),
  AMQP_URL: env
    .urls('amqp://guest:guest@127.0.0.1:5672', /^amqps?$/)
    .describe(
      'RabbitMQ: one node, or every node of a cluster comma-separated, taken in turn as each connection drops (docs/architecture.md §11)',
    ),
  AMQP_RECONNECT_DELAY_MS: env
    .positiveInt(500)
    .describe(
      'wait between attempts to reach the broker while it is away: a service is back on it within this and a moment ' +
        "of the broker's return (an ended session refused, docs/api.md §11.1), and its outbox relay tries again at once",
    ),
  EVENTS_EXCHANGE: env.string('recipes.events').describe('the topic exchange events travel on'),
  EVENT_MAX_ATTEMPTS: env
    .positiveInt(5)
    .describe(
      'failed attempts of an event before it goes to the dead-letter queue; a database or service that is unavailable is waited for, and never counts',
    ),
  EVENT_RETRY_DELAYS_MS: env
    .positiveInts('5000,30000,120000,600000')
    .describe('how long a failed event waits before each next attempt, comma-separated (the last delay repeats)'),
  MIGRATE_ON_START: env
    .flag(true)
    .describe(
      "migrate the service's schema at start; `false` where migrations run as their own step " +
        '(`node services/<name>/dist/migrate.js`): a schema behind the code then stops the process with one line',
    ),
};

/** How every service verifies tokens; only the users service also holds the private key (`signingEnv`). */
export const tokenEnv = {
  JWT_PUBLIC_KEY_FILE: env.string('.keys/jwt-public.pem').describe('Ed25519 public key that verifies tokens'),
  JWT_ISSUER: env.string('recipes-users').describe('required `iss` claim'),
  JWT_AUDIENCE: env.string('recipes-api').describe('required `aud` claim'),
};

/** What the service that issues tokens reads besides `tokenEnv`. */
export const signingEnv = {
  JWT_PRIVATE_KEY_FILE: env.string('.keys/jwt-private.pem').describe('Ed25519 private key that signs tokens'),
  TOKEN_TTL_SECONDS: env
    .positiveInt(900)
    .describe('access token lifetime (`expiresIn`); a session lives on through refresh tokens (docs/api.md §11.1)'),
};

/**
 * The services whose requests notify other users (comments by mentions, content by tags), each counting
 * what its own requests notify (docs/api.md §4 and §5). At least 20, the most one request can notify
 * (20 tags), so that any request fits in a fresh hour.
 */
export const notificationEnv = {
  NOTIFICATION_BUDGET_PER_HOUR: z.coerce
    .number()
    .int()
    .min(20)
    .default(100)
    .describe(
      'users one caller may notify per clock hour: by mentions, new or by edit (comments), and by tags (content), ' +
        'each service counting its own in its database, so across its instances; at least `20` (docs/api.md §4, §5)',
    ),
};

/**
 * The owners' internal look-ups (libs/directory), for what the events have not brought yet; each service takes those it
 * needs.
 */
export const lookupEnv = {
  USERS_INTERNAL_URL: env
    .urls('http://127.0.0.1:3101', /^https?$/)
    .describe(
      "the users service's internal look-ups, for users the events have not brought yet; several instances comma-separated, each tried in turn",
    ),
  CONTENT_INTERNAL_URL: env
    .urls('http://127.0.0.1:3102', /^https?$/)
    .describe('look-ups of recipes and posts the events have not brought yet; several instances comma-separated'),
  COLLECTIONS_INTERNAL_URL: env
    .urls('http://127.0.0.1:3104', /^https?$/)
    .describe('look-ups of collections the events have not brought yet; several instances comma-separated'),
};

/** Where the users service gathers a user's data export from (docs/api.md §11.2): each service's internal port. */
export const exportSourcesEnv = {
  CONTENT_INTERNAL_URL: lookupEnv.CONTENT_INTERNAL_URL,
  COLLECTIONS_INTERNAL_URL: lookupEnv.COLLECTIONS_INTERNAL_URL,
  COMMENTS_INTERNAL_URL: env
    .urls('http://127.0.0.1:3103', /^https?$/)
    .describe("the comments service's internal routes, for a user's data export; several instances comma-separated"),
  NOTIFICATIONS_INTERNAL_URL: env
    .urls('http://127.0.0.1:3105', /^https?$/)
    .describe(
      "the notifications service's internal routes, for a user's data export; several instances comma-separated",
    ),
};

/**
 * Where the instances of a process that counts limits (the gateway, users, comments) count them together
 * (docs/architecture.md §11).
 */
export const sharedStoreEnv = {
  REDIS_URL: z
    .url({ protocol: /^rediss?$/ })
    .optional()
    .describe(
      'Redis, where every instance counts rate limits and failed logins; unset, each ' +
        'instance counts in its own memory (right for one instance, N budgets behind N)',
    ),
  REDIS_KEY_PREFIX: env
    .string('recipes:')
    .describe('before every key this system writes in Redis, so that systems sharing one count apart'),
};
