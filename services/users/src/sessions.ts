import { createHash, createHmac, createPrivateKey, hkdfSync, randomBytes } from 'node:crypto';
import { createEvent, newId, type SessionEnded, userSessionEnded } from '@recipes/contracts';
import { type Pool, type Queryable, withTransaction } from '@recipes/db';
import { enqueue } from '@recipes/outbox';
import { type EndedSessions, recordSessionEnd } from '@recipes/runtime';
import * as repository from './repository/sessions.js';
import type { SessionRecord } from './repository/sessions.js';

const PRODUCER = 'users';

/** A refresh token presented again this soon after it was replaced gets the same answer (two tabs at once). */
export const REFRESH_GRACE_MS = 10_000;
/** How long a session that is over stays in the table (its refresh tokens refused as unknown after). */
export const SESSIONS_KEPT_DAYS = 7;

/** Signs an access token of a session as of `issuedAt` (seconds): the same arguments give the same token. */
export type SignAccessToken = (subject: {
  id: string;
  username: string;
  sessionId: string;
  issuedAt: number;
}) => string;

export interface SessionSettings {
  /** PEM of the signing key, from which the key of the refresh tokens' HMAC is derived. */
  privateKey: string;
  signAccessToken: SignAccessToken;
  tokenTtlSeconds: number;
  maxDays: number;
  idleDays: number;
  /** Live sessions per user: a login past it ends the least recently used. */
  perUser: number;
  refreshLimit: { perWindow: number; windowMs: number };
  /** What this process refuses: an end is learnt here as soon as it commits, before any event comes back. */
  endedSessions: EndedSessions;
}

/** What a login, a registration and a refresh answer (docs/api.md §11.1), less the user. */
export interface SessionTokens {
  token: string;
  refreshToken: string;
  expiresIn: number;
}

/**
 * Why a refresh token is refused: no session has it (forged, or its session was swept or deleted), its session
 * is over (ended, past its maximum age, or idle too long), or it was used before (a replay, or a token of a
 * session a replay ended).
 */
export type RefreshRefusal = 'unknown' | 'over' | 'replayed';

export type RefreshOutcome =
  | { kind: 'issued'; tokens: SessionTokens }
  | { kind: 'refused'; why: RefreshRefusal }
  | { kind: 'limited'; retryAfterSeconds: number };

export type EndReason = SessionEnded['reason'];

const sha256 = (value: string) => createHash('sha256').update(value).digest();
const seconds = (at: Date) => Math.floor(at.getTime() / 1000);

/**
 * Sessions (docs/api.md §11.1) after the design of RFC 9700 §4.14: a short-lived access token naming its
 * session (`sid`), and an opaque refresh token that works once and is replaced by each refresh. A token
 * is 256 bits of HMAC-SHA-256 of the session's random seed and its generation under a key derived from
 * the signing key; only its SHA-256 is stored. So the answer a token got at its first use can be given
 * again, exactly, when it is presented again within the grace (Supabase's reuse interval), and a token
 * presented again later is a replay that ends the session (Auth0's reuse detection). The refreshes of one
 * session take turns on its row's lock, so any number at once give one successor.
 */
export function sessions(pool: Pool, settings: SessionSettings) {
  const hmacKey = Buffer.from(
    hkdfSync(
      'sha256',
      createPrivateKey(settings.privateKey).export({ format: 'der', type: 'pkcs8' }),
      Buffer.alloc(0),
      'recipes refresh tokens',
      32,
    ),
  );
  const refreshTokenOf = (seed: Buffer, generation: number) =>
    createHmac('sha256', hmacKey).update(seed).update(`:${generation}`).digest('base64url');
  const tokensOf = (
    subject: { userId: string; username: string; sessionId: string },
    seed: Buffer,
    generation: number,
    issuedAt: Date,
  ): SessionTokens => ({
    token: settings.signAccessToken({
      id: subject.userId,
      username: subject.username,
      sessionId: subject.sessionId,
      issuedAt: seconds(issuedAt),
    }),
    refreshToken: refreshTokenOf(seed, generation),
    expiresIn: settings.tokenTtlSeconds,
  });

  /**
   * Ends the sessions `which` names in `tx`, keeps the end where this service's verifier loads it from
   * (libs/runtime's ended_sessions) and tells the other services, in the same transaction. Gives what to
   * do once it commits: this process learns the end at once.
   */
  async function end(
    tx: Queryable,
    userId: string,
    which: { id: string } | { except: string | null } | { beyondNewest: number },
    reason: EndReason,
    correlationId: string,
  ) {
    const { ids, endedAt } = await repository.endSessions(tx, userId, which, reason);
    if (ids.length === 0)
      return { ended: false, ids, tokensExpireBy: endedAt.toISOString(), committed: () => undefined };
    // A deleted account's ends name its sessions only: a not-before kept per user would keep its id
    // (docs/api.md §11.2).
    const all = 'except' in which && which.except === null && reason !== 'account_deleted';
    const data: SessionEnded = {
      userId,
      sessionIds: ids,
      notBefore: all ? endedAt.toISOString() : null,
      reason,
      endedAt: endedAt.toISOString(),
      // An access token lives TOKEN_TTL_SECONDS from its issue, at most now: after that there is nothing to refuse.
      tokensExpireBy: new Date(endedAt.getTime() + settings.tokenTtlSeconds * 1000 + 1000).toISOString(),
    };
    await recordSessionEnd(tx, data);
    await enqueue(tx, createEvent(userSessionEnded, data, { producer: PRODUCER, correlationId }));
    return {
      ended: true,
      ids,
      tokensExpireBy: data.tokensExpireBy,
      committed: () => settings.endedSessions.learn(data),
    };
  }

  async function ending(work: (tx: Queryable) => ReturnType<typeof end>): Promise<boolean> {
    const { ended, committed } = await withTransaction(pool, work);
    committed();
    return ended;
  }

  return {
    /**
     * Opens a session for a user who just proved who they are (a registration, a login), ending their least
     * recently used ones past `perUser`.
     */
    async open(
      user: { id: string; username: string },
      userAgent: string | null,
      correlationId: string,
    ): Promise<SessionTokens> {
      const seed = randomBytes(32);
      const sessionId = newId();
      const { issuedAt, committed } = await withTransaction(pool, async (tx) => {
        const { issuedAt } = await repository.insertSession(tx, {
          id: sessionId,
          userId: user.id,
          userAgent: userAgent?.slice(0, 512) ?? null,
          seed,
          maxDays: settings.maxDays,
          tokenHash: sha256(refreshTokenOf(seed, 0)),
        });
        return {
          issuedAt,
          ...(await end(tx, user.id, { beyondNewest: settings.perUser }, 'too_many_sessions', correlationId)),
        };
      });
      committed();
      return tokensOf({ userId: user.id, username: user.username, sessionId }, seed, 0, issuedAt);
    },

    /**
     * Rotates `refreshToken`: the current one gives the next; one used before gets, within the grace of
     * its first use, the answer it got then, and later ends the session (and is refused).
     */
    async refresh(refreshToken: string, correlationId: string): Promise<RefreshOutcome> {
      const outcome = await withTransaction(
        pool,
        async (tx): Promise<RefreshOutcome | { kind: 'replayed'; committed: () => void }> => {
          const found = await repository.lockSessionOfToken(tx, sha256(refreshToken));
          if (!found) return { kind: 'refused', why: 'unknown' };
          const state = await repository.readSessionState(
            tx,
            found.sessionId,
            found.presented,
            settings.idleDays,
            settings.tokenTtlSeconds,
          );
          if (state.over) return { kind: 'refused', why: state.endReason === 'reuse' ? 'replayed' : 'over' };
          const subject = { userId: state.userId, username: state.username, sessionId: state.id };
          if (found.presented < state.generation) {
            // Used before: within the grace of its first use, the answer it got then; later, a replay.
            if (
              state.successorIssuedAt !== null &&
              state.sinceSuccessorMs !== null &&
              state.sinceSuccessorMs <= REFRESH_GRACE_MS
            ) {
              return {
                kind: 'issued',
                tokens: tokensOf(subject, state.seed, found.presented + 1, state.successorIssuedAt),
              };
            }
            const { committed } = await end(tx, state.userId, { id: state.id }, 'reuse', correlationId);
            return { kind: 'replayed', committed };
          }
          const { perWindow, windowMs } = settings.refreshLimit;
          const newWindow = state.windowAgeMs >= windowMs;
          if (!newWindow && state.refreshesInWindow >= perWindow) {
            return {
              kind: 'limited',
              retryAfterSeconds: Math.max(1, Math.ceil((windowMs - state.windowAgeMs) / 1000)),
            };
          }
          const next = state.generation + 1;
          const { issuedAt } = await repository.rotateSession(
            tx,
            state.id,
            next,
            sha256(refreshTokenOf(state.seed, next)),
            newWindow,
          );
          return { kind: 'issued', tokens: tokensOf(subject, state.seed, next, issuedAt) };
        },
      );
      // A replay ended the session above, committed; the caller is told so.
      if (outcome.kind !== 'replayed') return outcome;
      outcome.committed();
      return { kind: 'refused', why: 'replayed' };
    },

    /** Ends one session of `userId`; false when it is not theirs or not going. */
    endOne: (userId: string, sessionId: string, reason: EndReason, correlationId: string): Promise<boolean> =>
      ending((tx) => end(tx, userId, { id: sessionId }, reason, correlationId)),

    /** Ends every session of `userId` but `except` (none: all of them). */
    async endAll(userId: string, except: string | null, reason: EndReason, correlationId: string): Promise<void> {
      await ending((tx) => end(tx, userId, { except }, reason, correlationId));
    },

    /** Ends, in `tx`, every session of `userId` but `except` (a password change's); call `committed` once `tx` has. */
    endOthersIn: (tx: Queryable, userId: string, except: string | null, correlationId: string) =>
      end(tx, userId, { except }, 'password_changed', correlationId),

    /** Ends, in `tx`, every session of `userId` whose account is being deleted; call `committed` once `tx` has. */
    endAllOfDeletedIn: (tx: Queryable, userId: string, correlationId: string) =>
      end(tx, userId, { except: null }, 'account_deleted', correlationId),

    /** Forgets the sessions over for more than `SESSIONS_KEPT_DAYS`, their refresh tokens with them. */
    sweep: () => repository.deleteSessionsOverFor(pool, SESSIONS_KEPT_DAYS, settings.idleDays),

    /** The live sessions of `userId`, most recently used first. */
    list(userId: string): Promise<SessionRecord[]> {
      return repository.findLiveSessions(pool, userId, settings.idleDays);
    },
  };
}

export type Sessions = ReturnType<typeof sessions>;
