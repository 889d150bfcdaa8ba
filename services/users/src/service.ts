import { tokenIssuer } from '@recipes/auth';
import { defineService, type PartsContext } from '@recipes/runtime';
import { accounts } from './accounts.js';
import { type UsersConfig, usersConfigSchema } from './config.js';
import { published } from './events/published.js';
import { relations } from './relations.js';
import authRoutes from './routes/auth/index.js';
import internalRoutes from './routes/internal/index.js';
import userRoutes from './routes/users/index.js';

/** The accounts, and the issuer of their tokens: this is the one service that holds the private key. */
function parts({ config, pool, keys }: PartsContext<UsersConfig>) {
  if (!keys.privateKey) {
    throw new Error('The users service signs tokens: it needs the private key (JWT_PRIVATE_KEY_FILE)');
  }
  return {
    accounts: accounts(pool),
    relations: relations(pool),
    issueToken: tokenIssuer({
      privateKey: keys.privateKey,
      issuer: config.JWT_ISSUER,
      audience: config.JWT_AUDIENCE,
      ttlSeconds: config.TOKEN_TTL_SECONDS,
    }),
  };
}

export type UsersParts = ReturnType<typeof parts>;

export const usersService = defineService({
  name: 'users',
  description: 'Accounts, tokens and profiles',
  configSchema: usersConfigSchema,
  migrations: new URL('../migrations', import.meta.url),
  publishes: published,
  parts,
  async routes(app, { accounts, relations, issueToken }, config) {
    await app.register(authRoutes, {
      prefix: '/api/auth',
      accounts,
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
      sharedStore: { url: config.REDIS_URL, prefix: config.REDIS_KEY_PREFIX },
    });
    await app.register(userRoutes, { prefix: '/api/users', accounts, relations });
  },
  async internalRoutes(internal, { accounts }) {
    await internal.register(internalRoutes, { prefix: '/internal/users', accounts });
  },
});
