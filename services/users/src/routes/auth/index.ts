import rateLimit from '@fastify/rate-limit';
import type { IssueToken } from '@recipes/auth';
import { type App, problemResponses, unauthorized } from '@recipes/http';
import type { Accounts } from '../../accounts.js';
import { toAuthor } from '../../accounts.js';
import { loginBody, registrationBody, sessionResponse } from '../../schemas.js';

export interface AuthRoutesOptions {
  accounts: Accounts;
  issueToken: IssueToken;
  limits: { login: { perAddress: number; perUsername: number }; register: { perAddress: number }; windowMs: number };
}

/** Registration and login: `/api/auth/...`. */
export default async function authRoutes(app: App, { accounts, issueToken, limits }: AuthRoutesOptions) {
  await app.register(rateLimit, { global: false, timeWindow: limits.windowMs });
  const perAddress = (max: number) => app.rateLimit({ max });

  app.post(
    '/register',
    {
      onRequest: perAddress(limits.register.perAddress),
      schema: {
        summary: 'Create an account',
        tags: ['users'],
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

  // A plugin instance runs one limit per request, so the limit per username is a second instance
  // in a scope of its own. It runs once the body is parsed: guessing one account's password from
  // many addresses is limited too.
  await app.register(async (loginScope: App) => {
    await loginScope.register(rateLimit, {
      global: true,
      hook: 'preHandler',
      max: limits.login.perUsername,
      timeWindow: limits.windowMs,
      keyGenerator: (request) => {
        const body = request.body as { username?: unknown } | undefined;
        return `login:${typeof body?.username === 'string' ? body.username.toLowerCase() : ''}`;
      },
    });

    loginScope.post(
      '/login',
      {
        onRequest: perAddress(limits.login.perAddress),
        schema: {
          summary: 'Exchange a username and password for a token',
          tags: ['users'],
          body: loginBody,
          response: { 200: sessionResponse, ...problemResponses(400, 401, 413, 415, 429) },
        },
      },
      async (request) => {
        const user = await accounts.authenticate(request.body.username, request.body.password);
        if (!user) throw unauthorized('Invalid username or password');
        return { user: toAuthor(user), token: issueToken(user) };
      },
    );
  });
}
