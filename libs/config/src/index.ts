import { readFileSync } from 'node:fs';
import { z } from 'zod';

/** Thrown when the environment does not satisfy a service's config schema. */
export class ConfigError extends Error {
  override name = 'ConfigError';
}

/**
 * Parses `env` with `schema`. Every problem is named by its variable, all on one line,
 * so an operator sees at once what to fix.
 */
export function parseConfig<S extends z.ZodType>(schema: S, env: NodeJS.ProcessEnv = process.env): z.infer<S> {
  const result = schema.safeParse(env);
  if (result.success) return result.data;
  const problems = result.error.issues.map((issue) => {
    const variable = issue.path.join('.') || '(environment)';
    const value = typeof issue.path[0] === 'string' ? env[issue.path[0]] : undefined;
    return value === undefined ? `${variable} is required (${issue.message})` : `${variable}: ${issue.message}`;
  });
  throw new ConfigError(`Invalid configuration: ${problems.join('; ')}`);
}

/** `parseConfig` for a process entry point: a bad environment stops the process with one clear line. */
export function loadConfig<S extends z.ZodType>(schema: S, env: NodeJS.ProcessEnv = process.env): z.infer<S> {
  try {
    return parseConfig(schema, env);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    process.stderr.write(`${error.message}\n`);
    process.exit(78); // EX_CONFIG
  }
}

/** Building blocks for service config schemas. */
export const env = {
  port: (fallback: number) => z.coerce.number().int().min(0).max(65535).default(fallback),
  url: (fallback: string) => z.url().default(fallback),
  string: (fallback: string) => z.string().min(1).default(fallback),
  positiveInt: (fallback: number) => z.coerce.number().int().positive().default(fallback),
  /** Comma-separated positive integers, at least one. */
  positiveInts: (fallback: string) =>
    z
      .string()
      .default(fallback)
      .transform((value) => value.split(',').map((item) => Number(item.trim())))
      .pipe(z.array(z.number().int().positive()).min(1)),
  /** Peers whose X-Forwarded-For is believed, in proxy-addr syntax (comma-separated); `none` believes nobody's. */
  trustedProxies: (fallback: string) =>
    z
      .string()
      .min(1)
      .default(fallback)
      .transform((value): string | false => (value.trim() === 'none' ? false : value)),
  /** "true"/"false", "1"/"0", "yes"/"no", "on"/"off". */
  flag: (fallback: boolean) => z.stringbool().default(fallback),
  logLevel: () => z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
};

/** Variables every service reads. */
export const serviceEnv = {
  HOST: env.string('127.0.0.1'),
  /**
   * Peers whose X-Forwarded-For is believed (proxy-addr syntax), as the client address decides rate limits:
   * at a service, the gateway (loopback by default, where `npm start` runs it); the gateway believes
   * nobody's unless told (see its config).
   */
  TRUST_PROXY: env.trustedProxies('loopback'),
  LOG_LEVEL: env.logLevel(),
  SHUTDOWN_TIMEOUT_MS: env.positiveInt(10_000),
  /** Check every response against its schema before sending it: on in the tests, off in production (see @recipes/http). */
  RESPONSE_VALIDATION: env.flag(false),
  /**
   * How long a readiness answer (a service's `/health/ready`, the gateway's `/health`) is reused, so that
   * a flood of probes costs the dependencies one check per period; 0 only shares the checks under way.
   */
  HEALTH_CACHE_MS: z.coerce.number().int().min(0).default(1_000),
};

/** Variables of a service that owns a schema and talks over RabbitMQ. */
export const backendEnv = {
  ...serviceEnv,
  DATABASE_URL: env.url('postgres://postgres@127.0.0.1:5432/recipes'),
  DATABASE_POOL_MAX: env.positiveInt(10),
  /** Server-side limits of each query; the statement timeout stays below the gateway's upstream timeout. */
  DATABASE_STATEMENT_TIMEOUT_MS: env.positiveInt(5_000),
  DATABASE_LOCK_TIMEOUT_MS: env.positiveInt(2_000),
  DATABASE_IDLE_IN_TRANSACTION_TIMEOUT_MS: env.positiveInt(30_000),
  AMQP_URL: env.url('amqp://guest:guest@127.0.0.1:5672'),
  EVENTS_EXCHANGE: env.string('recipes.events'),
  /** Failed attempts of one event before it is dead-lettered; an unavailable database or service is not an attempt. */
  EVENT_MAX_ATTEMPTS: env.positiveInt(5),
  /** How long a failed event waits before each next attempt, comma-separated; the last one repeats. */
  EVENT_RETRY_DELAYS_MS: env.positiveInts('5000,30000,120000,600000'),
  MIGRATE_ON_START: env.flag(true),
};

/** How every service verifies tokens; only the users service also holds the private key. */
export const tokenEnv = {
  JWT_PUBLIC_KEY_FILE: env.string('.keys/jwt-public.pem'),
  JWT_ISSUER: env.string('recipes-users'),
  JWT_AUDIENCE: env.string('recipes-api'),
};

/**
 * The services whose requests notify other users (comments by mentions, content by tags), each counting
 * what its own requests notify (docs/api.md §4 and §5). At least 20, the most one request can notify
 * (20 tags), so that any request fits in a fresh hour.
 */
export const notificationEnv = {
  /** Users one caller may notify per hour, in each of those services. */
  NOTIFICATION_BUDGET_PER_HOUR: z.coerce.number().int().min(20).default(100),
};

/** Reads a file named by a setting (a key, a secret); a missing file stops the process with one clear line. */
export function readSettingFile(variable: string, path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (error) {
    process.stderr.write(`Invalid configuration: ${variable}: cannot read ${path} (${(error as NodeJS.ErrnoException).code ?? 'error'})\n`);
    process.exit(78);
  }
}
