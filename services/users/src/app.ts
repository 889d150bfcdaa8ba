import { authPlugin, tokenIssuer } from '@recipes/auth';
import type { Pool } from '@recipes/db';
import { type App, createApp, internalApp, type ReadinessChecks } from '@recipes/http';
import type { Logger } from '@recipes/logging';
import { accounts } from './accounts.js';
import type { UsersConfig } from './config.js';
import authRoutes from './routes/auth/index.js';
import internalRoutes from './routes/internal/index.js';
import userRoutes from './routes/users/index.js';

export interface UsersAppDependencies {
  config: UsersConfig;
  keys: { privateKey: string; publicKey: string };
  pool: Pool;
  logger: Logger;
  readiness?: ReadinessChecks;
}

export async function buildApp({ config, keys, pool, logger, readiness }: UsersAppDependencies): Promise<App> {
  const app = await createApp({
    title: 'users',
    description: 'Accounts, tokens and profiles',
    logger,
    trustProxy: config.TRUST_PROXY,
    ...(readiness ? { readiness } : {}),
  });

  await app.register(authPlugin, { publicKey: keys.publicKey, issuer: config.JWT_ISSUER, audience: config.JWT_AUDIENCE });

  const users = accounts(pool);
  const issueToken = tokenIssuer({
    privateKey: keys.privateKey,
    issuer: config.JWT_ISSUER,
    audience: config.JWT_AUDIENCE,
    ttlSeconds: config.TOKEN_TTL_SECONDS,
  });
  await app.register(authRoutes, {
    prefix: '/api/auth',
    accounts: users,
    issueToken,
    limits: {
      windowMs: config.RATE_LIMIT_WINDOW_MS,
      login: {
        perAddress: config.LOGIN_LIMIT_PER_ADDRESS,
        failuresPerUsernameAndAddress: config.LOGIN_FAILURES_PER_USERNAME_AND_ADDRESS,
        failuresPerAddress: config.LOGIN_FAILURES_PER_ADDRESS,
      },
      register: { perAddress: config.REGISTER_LIMIT_PER_ADDRESS },
    },
  });
  await app.register(userRoutes, { prefix: '/api/users', accounts: users });
  const internal = await internalApp(app, { title: 'users', logger, ...(readiness ? { readiness } : {}) });
  await internal.register(internalRoutes, { prefix: '/internal/users', accounts: users });
  return app;
}
