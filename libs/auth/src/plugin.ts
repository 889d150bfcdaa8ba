import fastifyJwt from '@fastify/jwt';
import { unauthorized } from '@recipes/http';
import type { FastifyInstance, FastifyRequest, onRequestHookHandler } from 'fastify';
import fp from 'fastify-plugin';
import { z } from 'zod';
import type { EndedSessions } from './ended-sessions.js';

/** Tokens are signed with Ed25519 (EdDSA) by the users service; nothing else is ever accepted. */
export const TOKEN_ALGORITHM = 'EdDSA';

export interface AuthSettings {
  /** PEM of the users service's public key. This plugin never sees a private key. */
  publicKey: string;
  issuer: string;
  audience: string;
  /** The ended sessions this process knows of: a token of one is refused. None: every valid token is taken. */
  endedSessions?: EndedSessions;
}

/** Who is calling, as the token says. */
export interface Caller {
  id: string;
  username: string;
  /** The session the token belongs to (its `sid`) and when it was issued; absent for a token from before sessions. */
  session?: { id: string; issuedAt: number };
  /**
   * Set only on a route that takes tokens of ended sessions (`acceptsEndedSessions` in its config), when this
   * token's session has ended: the route decides what such a caller may still learn.
   */
  sessionEnded?: true;
}

const claimsSchema = z.object({
  sub: z.uuid(),
  username: z.string().min(1),
  sid: z.uuid().optional(),
  iat: z.number(),
});

declare module 'fastify' {
  interface FastifyRequest {
    /** Who sent the request, whenever it came with a token (which is then always valid). */
    caller?: Caller;
  }
  interface FastifyContextConfig {
    /**
     * The route answers a token of an ended session itself, instead of the 401 every other route gives: e.g.
     * a retried account deletion, whose first try ended the sessions.
     */
    acceptsEndedSessions?: boolean;
  }
  interface FastifyInstance {
    auth: {
      /** onRequest hook of the routes that need a caller: 401 without a token. */
      required: onRequestHookHandler;
    };
  }
}

/** The caller of a route guarded by `app.auth.required`. */
export function callerOf(request: FastifyRequest): Caller {
  if (!request.caller) throw unauthorized('TOKEN_MISSING');
  return request.caller;
}

/**
 * The 401 of a token the verifier refused: expired, or not valid (malformed, forged, wrong algorithm, issuer or
 * audience...). fast-jwt checks the form, the signature and the required claims before the dates, so a token
 * told expired is one the users service signed.
 */
const refusalOf = (error: unknown) =>
  unauthorized((error as { code?: unknown } | null)?.code === 'FAST_JWT_EXPIRED' ? 'TOKEN_EXPIRED' : 'TOKEN_INVALID');

/** Tokens remembered as verified, per process: the most recently used ones. */
const VERIFIED_TOKENS_CACHED = 10_000;

async function authPlugin(app: FastifyInstance, settings: AuthSettings) {
  await app.register(fastifyJwt, {
    secret: { public: settings.publicKey },
    verify: {
      algorithms: [TOKEN_ALGORITHM],
      allowedIss: settings.issuer,
      allowedAud: settings.audience,
      requiredClaims: ['sub', 'username', 'iat', 'exp', 'iss', 'aud'],
      // The signature check is the costly part: a token already verified is not checked again until it
      // expires (the cache keys on the whole token, so a token with any byte changed is checked afresh).
      cache: VERIFIED_TOKENS_CACHED,
    },
  });

  // A cached check gives back the same payload, so its claims are read once per token.
  const callers = new WeakMap<object, Caller | undefined>();
  const callerOfPayload = (payload: object): Caller | undefined => {
    if (callers.has(payload)) return callers.get(payload);
    const claims = claimsSchema.safeParse(payload);
    // Frozen: every request with the token is given the same one.
    const caller = claims.success
      ? Object.freeze({
          id: claims.data.sub,
          username: claims.data.username,
          // Absent for a token issued before sessions existed: valid until it expires.
          ...(claims.data.sid === undefined
            ? {}
            : { session: Object.freeze({ id: claims.data.sid, issuedAt: claims.data.iat }) }),
        })
      : undefined;
    callers.set(payload, caller);
    return caller;
  };

  function verify(request: FastifyRequest, authorization: string): void {
    // As @fastify/jwt reads the header, but checked with the verifier alone: the request's own path decodes
    // each token before the cache is asked, and runs its steps through callbacks.
    const [scheme = '', token, ...rest] = authorization.split(' ');
    // No bearer token in it (empty, another scheme, `Bearer` alone): refused all the same, as missing.
    if (!/^Bearer$/i.test(scheme) || authorization.slice(scheme.length).trim() === '')
      throw unauthorized('TOKEN_MISSING');
    if (!token || rest.length > 0) throw unauthorized('TOKEN_INVALID');
    let caller: Caller | undefined;
    try {
      caller = callerOfPayload(app.jwt.verify<object>(token));
    } catch (error) {
      throw refusalOf(error);
    }
    if (!caller) throw unauthorized('TOKEN_INVALID');
    const { session } = caller;
    const ended =
      session &&
      settings.endedSessions?.whyRefused({ userId: caller.id, sessionId: session.id, issuedAt: session.issuedAt });
    if (ended) {
      if (request.routeOptions.config.acceptsEndedSessions !== true) throw unauthorized(ended);
      request.caller = Object.freeze({ ...caller, sessionEnded: true as const });
      return;
    }
    request.caller = caller;
  }

  app.decorateRequest('caller', undefined);
  // A token that is sent is checked on every route, public reads included: a bad one is never ignored.
  // Before any route's own hooks, so 401 comes first (the check order of the API contract).
  // So any answer may depend on the caller: caches key it on the token, and keep a caller's answer to
  // themselves (a route with a validator of its own makes it `private, no-cache`).
  // Both hooks take a callback rather than return a promise: every request runs the first.
  app.addHook('onRequest', (request, reply, done) => {
    reply.header('vary', 'Authorization');
    const { authorization } = request.headers;
    if (authorization === undefined) return done();
    reply.header('cache-control', 'private');
    try {
      verify(request, authorization);
    } catch (error) {
      return done(error as Error);
    }
    done();
  });
  const required: onRequestHookHandler = (request, _reply, done) =>
    done(request.caller === undefined ? unauthorized('TOKEN_MISSING') : undefined);
  app.decorate('auth', { required });
}

export default fp(authPlugin, { name: 'auth', fastify: '5.x' });
