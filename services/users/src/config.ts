import { backendEnv, env, tokenEnv } from '@recipes/config';
import { z } from 'zod';

export const usersConfigSchema = z.object({
  ...backendEnv,
  ...tokenEnv,
  PORT: env.port(3001),
  /** Prometheus metrics, on a port of their own that the gateway never exposes. */
  METRICS_PORT: env.port(9101),
  JWT_PRIVATE_KEY_FILE: env.string('.keys/jwt-private.pem'),
  TOKEN_TTL_SECONDS: env.positiveInt(3600),
  RATE_LIMIT_WINDOW_MS: env.positiveInt(60_000),
  LOGIN_LIMIT_PER_ADDRESS: env.positiveInt(30),
  LOGIN_LIMIT_PER_USERNAME: env.positiveInt(10),
  REGISTER_LIMIT_PER_ADDRESS: env.positiveInt(20),
});

export type UsersConfig = z.infer<typeof usersConfigSchema>;
