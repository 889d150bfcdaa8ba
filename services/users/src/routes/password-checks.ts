import { type App, HttpError, refuseOverLimit, type SharedStore, wrongCredentials } from '@recipes/http';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { loginGuard } from '../login-guard.js';
import { sharedFailureCounter } from '../shared-failure-counter.js';

export interface FailedLoginLimits {
  failuresPerUsernameAndAddress: number;
  failuresPerAddress: number;
  windowMs: number;
}

/**
 * Every check of a password a caller sends (a login, the current password of a password change), counted
 * as failed logins per username and address and per address (docs/api.md §2): past the limits, `429`;
 * a wrong password, `401` without a `reason` (no token was at fault). One for the whole service, so both kinds
 * of check count together.
 */
export function passwordChecks(app: App, limits: FailedLoginLimits, shared: SharedStore | undefined) {
  // Announced only as it refuses: until then, how many failures remain would tell a guesser too much.
  const failedLoginLimit = {
    name: 'login-failures',
    max: limits.failuresPerUsernameAndAddress,
    windowMs: limits.windowMs,
    detail: 'Too many failed logins, try again later',
  };
  const failedLogins = loginGuard({
    ...limits,
    ...(shared
      ? {
          counter: (name, limit) =>
            sharedFailureCounter(shared, { name, limit, windowMs: limits.windowMs, logger: app.log }),
        }
      : {}),
  });

  /** What `check` finds for `username`'s password; a failed login when it finds nothing. */
  return async function checked<T>(
    request: FastifyRequest,
    reply: FastifyReply,
    username: string,
    check: () => Promise<T | undefined>,
  ): Promise<T> {
    const attempt = await failedLogins.begin(username, request.ip).catch((err: unknown) => {
      // Closed while the failures cannot be counted: a guesser must not get uncounted attempts.
      request.log.warn({ err }, 'failed logins cannot be counted: login refused');
      reply.header('retry-after', 1);
      throw new HttpError(503, 'Logins are paused for a moment, try again');
    });
    if (attempt.refused) refuseOverLimit(reply, failedLoginLimit, Math.ceil(attempt.retryAfterMs / 1000));
    const found = await check().catch((error: unknown) => {
      attempt.abandoned();
      throw error;
    });
    if (found === undefined) throw wrongCredentials('Invalid username or password');
    attempt.succeeded();
    return found;
  };
}

export type PasswordChecks = ReturnType<typeof passwordChecks>;
