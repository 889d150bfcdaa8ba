import { idParams } from '@recipes/contracts';
import { callerOf } from '@recipes/auth';
import {
  type App,
  notFound,
  problemResponses,
  rateLimits,
  refuseOverLimit,
  type SharedStore,
  unauthorized,
} from '@recipes/http';
import type { Accounts } from '../../accounts.js';
import { toAuthor } from '../../accounts.js';
import {
  loginBody,
  messageResponse,
  refreshBody,
  refreshResponse,
  registrationBody,
  sessionResponse,
  sessionsResponse,
} from '../../schemas.js';
import type { Sessions } from '../../sessions.js';
import type { PasswordChecks } from '../password-checks.js';

export interface AuthRoutesOptions {
  accounts: Accounts;
  sessions: Sessions;
  passwordChecked: PasswordChecks;
  limits: {
    login: { perAddress: number };
    register: { perAddress: number };
    refresh: { perSession: number };
    windowMs: number;
  };
  /** Where every instance counts the limits (its own memory when none). */
  shared: SharedStore | undefined;
}

/** The `reason` of each refused refresh (docs/api.md §2): whichever it is, the client signs in again. */
const refusedRefresh = { unknown: 'TOKEN_INVALID', over: 'SESSION_ENDED', replayed: 'REFRESH_TOKEN_REUSED' } as const;

const userAgentOf = (header: string | string[] | undefined) =>
  typeof header === 'string' && header.length > 0 ? header : null;

/** Registration, login and sessions: `/api/auth/...` (docs/api.md §3, §11.1). */
export default async function authRoutes(
  app: App,
  { accounts, sessions, passwordChecked, limits, shared }: AuthRoutesOptions,
) {
  const limitOf = await rateLimits(app, shared);
  const perAddress = (name: string, max: number) => limitOf({ name, max, windowMs: limits.windowMs });

  app.post(
    '/register',
    {
      onRequest: perAddress('register', limits.register.perAddress),
      config: { location: ({ user }) => `/api/users/${user.id}` },
      schema: {
        summary: 'Create an account, and open a session of it',
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
      const tokens = await sessions.open(user, userAgentOf(request.headers['user-agent']), request.id);
      return reply.code(201).send({ user: toAuthor(user), ...tokens });
    },
  );

  app.post(
    '/login',
    {
      // Attempts of any outcome, before any hashing: what one address can make the service spend.
      onRequest: perAddress('login', limits.login.perAddress),
      schema: {
        summary: 'Exchange a username and password for a session’s tokens',
        operationId: 'login',
        tags: ['users'],
        security: [],
        body: loginBody,
        response: { 200: sessionResponse, ...problemResponses(400, 401, 413, 415, 429) },
      },
    },
    async (request, reply) => {
      const { username, password } = request.body;
      const user = await passwordChecked(request, reply, username, () => accounts.authenticate(username, password));
      return {
        user: toAuthor(user),
        ...(await sessions.open(user, userAgentOf(request.headers['user-agent']), request.id)),
      };
    },
  );

  const refreshLimit = {
    name: 'session-refreshes',
    max: limits.refresh.perSession,
    windowMs: limits.windowMs,
    detail: 'Too many refreshes of this session, try again later',
  };
  app.post(
    '/refresh',
    {
      schema: {
        summary: 'Exchange a refresh token for new tokens (rotation: the token works once)',
        description:
          'A refresh token presented again within 10 s of its first use gets the answer it got then; later, it is a replay, and its session ends (`401`).',
        operationId: 'refreshSession',
        tags: ['users'],
        security: [],
        body: refreshBody,
        response: { 200: refreshResponse, ...problemResponses(400, 401, 413, 415, 429) },
      },
    },
    async (request, reply) => {
      const outcome = await sessions.refresh(request.body.refreshToken, request.id);
      if (outcome.kind === 'refused') throw unauthorized(refusedRefresh[outcome.why]);
      if (outcome.kind === 'limited') refuseOverLimit(reply, refreshLimit, outcome.retryAfterSeconds);
      return outcome.tokens;
    },
  );

  const sessionOf = (request: Parameters<typeof callerOf>[0]) => callerOf(request).session?.id ?? null;

  app.post(
    '/logout',
    {
      onRequest: app.auth.required,
      schema: {
        summary: 'End the caller’s session',
        operationId: 'logout',
        tags: ['users'],
        security: [{ bearerAuth: [] }],
        response: { 200: messageResponse, ...problemResponses(401) },
      },
    },
    async (request) => {
      const session = sessionOf(request);
      // A token from before sessions has none to end: it lapses on its own.
      if (session) await sessions.endOne(callerOf(request).id, session, 'logout', request.id);
      return { message: 'Logged out' };
    },
  );

  app.post(
    '/logout-all',
    {
      onRequest: app.auth.required,
      schema: {
        summary: 'End every session of the caller',
        operationId: 'logoutAll',
        tags: ['users'],
        security: [{ bearerAuth: [] }],
        response: { 200: messageResponse, ...problemResponses(401) },
      },
    },
    async (request) => {
      await sessions.endAll(callerOf(request).id, null, 'logout_all', request.id);
      return { message: 'Logged out' };
    },
  );

  app.get(
    '/sessions',
    {
      onRequest: app.auth.required,
      schema: {
        summary: 'The caller’s sessions, most recently used first',
        operationId: 'listSessions',
        tags: ['users'],
        security: [{ bearerAuth: [] }],
        response: { 200: sessionsResponse, ...problemResponses(401) },
      },
    },
    async (request) => {
      const current = sessionOf(request);
      const found = await sessions.list(callerOf(request).id);
      return {
        sessions: found.map(({ id, createdAt, lastUsedAt, userAgent }) => ({
          id,
          createdAt: createdAt.toISOString(),
          lastUsedAt: lastUsedAt.toISOString(),
          userAgent,
          current: id === current,
        })),
      };
    },
  );

  app.delete(
    '/sessions/:id',
    {
      onRequest: app.auth.required,
      schema: {
        summary: 'End one of the caller’s sessions',
        operationId: 'endSession',
        tags: ['users'],
        security: [{ bearerAuth: [] }],
        params: idParams,
        response: { 200: messageResponse, ...problemResponses(401, 404) },
      },
    },
    async (request) => {
      const ended = await sessions.endOne(callerOf(request).id, request.params.id, 'ended_by_user', request.id);
      if (!ended) throw notFound('Session not found');
      return { message: 'Session ended' };
    },
  );
}
