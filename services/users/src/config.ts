import { backendEnv, env, tokenEnv } from '@recipes/config';
import { z } from 'zod';

export const usersConfigSchema = z.object({
  ...backendEnv,
  ...tokenEnv,
  PORT: env.port(3001),
  /** Prometheus metrics, on a port of their own that the gateway never exposes. */
  METRICS_PORT: env.port(9101),
  /** The routes only the other services call (`/internal/...`), on a port of their own that the gateway never targets. */
  INTERNAL_PORT: env.port(3101),
  JWT_PRIVATE_KEY_FILE: env.string('.keys/jwt-private.pem'),
  TOKEN_TTL_SECONDS: env.positiveInt(3600),
  RATE_LIMIT_WINDOW_MS: env.positiveInt(60_000),
  /** Login attempts per address and window, failed or not: what one address can make the service hash. */
  LOGIN_LIMIT_PER_ADDRESS: env.positiveInt(30),
  /** Failed logins per window for one username from one address; from another address the owner still logs in. */
  LOGIN_FAILURES_PER_USERNAME_AND_ADDRESS: env.positiveInt(10),
  /** Failed logins per window from one address, whatever the usernames. */
  LOGIN_FAILURES_PER_ADDRESS: env.positiveInt(20),
  REGISTER_LIMIT_PER_ADDRESS: env.positiveInt(20),
});

export type UsersConfig = z.infer<typeof usersConfigSchema>;
