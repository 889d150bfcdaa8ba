import { tokenIssuer } from '@recipes/auth';
import { InternalClient } from '@recipes/directory';
import { sharedStoreFor } from '@recipes/http';
import { defineService, type PartsContext, sharedStoreSlot } from '@recipes/runtime';
import { accounts } from './accounts.js';
import { type UsersConfig, usersConfigSchema } from './config.js';
import { dataExport } from './data-export.js';
import { deletions } from './deletions.js';
import { handlers } from './events/handlers/index.js';
import { published } from './events/published.js';
import { relations } from './relations.js';
import authRoutes from './routes/auth/index.js';
import internalRoutes from './routes/internal/index.js';
import { accountCounts } from './routes/account-counts.js';
import { passwordChecks } from './routes/password-checks.js';
import deletionRoutes from './routes/users/deletion.js';
import exportRoutes from './routes/users/export.js';
import userRoutes from './routes/users/index.js';
import { sessions } from './sessions.js';
import { deletionMetrics } from './deletion-metrics.js';

/** The accounts, and the issuer of their tokens: this is the one service that holds the private key. */
function parts({ config, pool, keys, endedSessions }: PartsContext<UsersConfig>) {
  if (!keys.privateKey) {
    throw new Error('The users service signs tokens: it needs the private key (JWT_PRIVATE_KEY_FILE)');
  }
  const issueToken = tokenIssuer({
    privateKey: keys.privateKey,
    issuer: config.JWT_ISSUER,
    audience: config.JWT_AUDIENCE,
    ttlSeconds: config.TOKEN_TTL_SECONDS,
  });
  const userSessions = sessions(pool, {
    privateKey: keys.privateKey,
    signAccessToken: issueToken,
    tokenTtlSeconds: config.TOKEN_TTL_SECONDS,
    maxDays: config.SESSION_MAX_DAYS,
    idleDays: config.SESSION_IDLE_DAYS,
    perUser: config.SESSIONS_PER_USER,
    refreshLimit: { perWindow: config.REFRESH_LIMIT_PER_SESSION, windowMs: config.RATE_LIMIT_WINDOW_MS },
    endedSessions,
  });
  const userAccounts = accounts(pool);
  // A page of an export may take a while to gather on a large account; far longer than a look-up's deadline.
  const source = (service: string, url: string) => new InternalClient(service, url, 30_000);
  const sources = {
    content: source('content', config.CONTENT_INTERNAL_URL),
    comments: source('comments', config.COMMENTS_INTERNAL_URL),
    collections: source('collections', config.COLLECTIONS_INTERNAL_URL),
    notifications: source('notifications', config.NOTIFICATIONS_INTERNAL_URL),
  };
  // Filled by the routes, which open it: a deleted account's counts there go with it.
  const shared = sharedStoreSlot();
  return {
    shared,
    accounts: userAccounts,
    dataExport: dataExport(pool, userAccounts, userSessions, sources),
    deletions: deletions(pool, userSessions, accountCounts(shared)),
    relations: relations(pool),
    sessions: userSessions,
  };
}

export type UsersParts = ReturnType<typeof parts>;

export const usersService = defineService({
  name: 'users',
  description: 'Accounts, sessions, tokens and profiles',
  configSchema: usersConfigSchema,
  migrations: new URL('../migrations', import.meta.url),
  publishes: published,
  parts,
  async routes(app, { accounts, dataExport, deletions, relations, sessions, shared: slot }, config) {
    const shared = await sharedStoreFor(app, { url: config.REDIS_URL, prefix: config.REDIS_KEY_PREFIX }, slot);
    // One count of failed logins for the logins and the password changes alike (docs/api.md §2, §11.1).
    const passwordChecked = passwordChecks(
      app,
      {
        failuresPerUsernameAndAddress: config.LOGIN_FAILURES_PER_USERNAME_AND_ADDRESS,
        failuresPerAddress: config.LOGIN_FAILURES_PER_ADDRESS,
        windowMs: config.RATE_LIMIT_WINDOW_MS,
      },
      shared,
    );
    await app.register(authRoutes, {
      prefix: '/api/auth',
      accounts,
      sessions,
      passwordChecked,
      limits: {
        windowMs: config.RATE_LIMIT_WINDOW_MS,
        login: { perAddress: config.LOGIN_LIMIT_PER_ADDRESS },
        register: { perAddress: config.REGISTER_LIMIT_PER_ADDRESS },
        refresh: { perSession: config.REFRESH_LIMIT_PER_SESSION },
      },
      shared,
    });
    await app.register(userRoutes, { prefix: '/api/users', accounts, relations, sessions, passwordChecked });
    await app.register(deletionRoutes, { prefix: '/api/users', accounts, deletions, passwordChecked });
    await app.register(exportRoutes, {
      prefix: '/api/users',
      dataExport,
      perHour: config.EXPORT_LIMIT_PER_HOUR,
      shared,
    });
    deletionMetrics(app.metricsRegistry, deletions);
    // Sessions over for a week go, with their refresh tokens, once an hour.
    const sweeper = setInterval(
      () => void sessions.sweep().catch((err: unknown) => app.log.warn({ err }, 'old sessions could not be swept')),
      3_600_000,
    );
    sweeper.unref();
    app.addHook('onClose', async () => clearInterval(sweeper));
  },
  handlers: (parts) => handlers(parts),
  async internalRoutes(internal, { accounts }) {
    await internal.register(internalRoutes, { prefix: '/internal/users', accounts });
  },
});
