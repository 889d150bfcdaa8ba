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
  TRUST_PROXY: string | false;
  RESPONSE_VALIDATION: boolean;
  HEALTH_CACHE_MS: number;
  JWT_PUBLIC_KEY_FILE: string;
  JWT_ISSUER: string;
  JWT_AUDIENCE: string;
  /** Only where tokens are issued. */
  JWT_PRIVATE_KEY_FILE?: string;
}

