import type { IssueToken } from '@recipes/auth';
import { type App, HttpError, problemResponses, rateLimits, refuseOverLimit, type SharedStoreSettings, sharedStoreFor, unauthorized } from '@recipes/http';
import type { Accounts } from '../../accounts.js';
import { toAuthor } from '../../accounts.js';
import { loginGuard } from '../../login-guard.js';
import { sharedFailureCounter } from '../../shared-failure-counter.js';
import { loginBody, registrationBody, sessionResponse } from '../../schemas.js';

export interface AuthRoutesOptions {
  accounts: Accounts;
  issueToken: IssueToken;
  limits: {
    login: { perAddress: number; failuresPerUsernameAndAddress: number; failuresPerAddress: number };
    register: { perAddress: number };
    windowMs: number;
  };
  /** Where every instance counts the limits and failed logins (its own memory when no URL is set). */
  sharedStore: SharedStoreSettings;
}

/** Registration and login: `/api/auth/...`. */
export default async function authRoutes(app: App, { accounts, issueToken, limits, sharedStore }: AuthRoutesOptions) {
  const shared = await sharedStoreFor(app, sharedStore);
  const limitOf = await rateLimits(app, shared);
  const perAddress = (name: string, max: number) => limitOf({ name, max, windowMs: limits.windowMs });
  // Announced only as it refuses: until then, how many failures remain would tell a guesser too much.
  const failedLoginLimit = {
    name: 'login-failures',
    max: limits.login.failuresPerUsernameAndAddress,
    windowMs: limits.windowMs,
    detail: 'Too many failed logins, try again later',
  };
  const failedLogins = loginGuard({
    failuresPerUsernameAndAddress: limits.login.failuresPerUsernameAndAddress,
    failuresPerAddress: limits.login.failuresPerAddress,
    windowMs: limits.windowMs,
    ...(shared ? { counter: (name, limit) => sharedFailureCounter(shared, { name, limit, windowMs: limits.windowMs, logger: app.log }) } : {}),
  });

  app.post(
    '/register',
    {
      onRequest: perAddress('register', limits.register.perAddress),
      config: { location: ({ user }) => `/api/users/${user.id}` },
      schema: {
        summary: 'Create an account',
        operationId: 'register',
        tags: ['users'],
        security: [],
        body: registrationBody,
        response: { 201: sessionResponse, ...problemResponses(400, 409, 413, 415, 429) },
      },
    },
    async (request, reply) => {
      const { username, password, avatarUrl } = request.body;
      const user = await accounts.register({ username, password, avatarUrl: avatarUrl ?? null }, request.id);
      request.log.info({ userId: user.id }, 'user registered');
      return reply.code(201).send({ user: toAuthor(user), token: issueToken(user) });
    },
  );

  app.post(
    '/login',
    {
      // Attempts of any outcome, before any hashing: what one address can make the service spend.
      onRequest: perAddress('login', limits.login.perAddress),
      schema: {
        summary: 'Exchange a username and password for a token',
        operationId: 'login',
        tags: ['users'],
        security: [],
        body: loginBody,
        response: { 200: sessionResponse, ...problemResponses(400, 401, 413, 415, 429) },
      },
    },
    async (request, reply) => {
      const { username, password } = request.body;
      const attempt = await failedLogins.begin(username, request.ip).catch((err: unknown) => {
        // Closed while the failures cannot be counted: a guesser must not get uncounted attempts.
        request.log.warn({ err }, 'failed logins cannot be counted: login refused');
        reply.header('retry-after', 1);
        throw new HttpError(503, 'Logins are paused for a moment, try again');
      });
      if (attempt.refused) refuseOverLimit(reply, failedLoginLimit, Math.ceil(attempt.retryAfterMs / 1000));
      const user = await accounts.authenticate(username, password).catch((error: unknown) => {
        attempt.abandoned();
        throw error;
      });
      if (!user) throw unauthorized('Invalid username or password');
      attempt.succeeded();
      return { user: toAuthor(user), token: issueToken(user) };
    },
  );
}
