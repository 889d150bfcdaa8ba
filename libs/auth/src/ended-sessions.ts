import type { UnauthorizedReason } from '@recipes/http';

/**
 * The end of one or more sessions, as a verifier needs it (the `user.session.ended` event's data): which
 * sessions of which user ended, since when tokens of every session of the user issued earlier are refused
 * (`notBefore`, when all of them ended), and when the last access token of those sessions expires anyway,
 * after which there is nothing left to refuse.
 */
export interface SessionEnd {
  userId: string;
  sessionIds: readonly string[];
  /** ISO time: a token of any session of the user issued in a whole second before it is refused. */
  notBefore: string | null;
  /** ISO time past which no access token of these sessions is valid: the end can be forgotten then. */
  tokensExpireBy: string;
  /**
   * Why they ended, as the event says (`logout`, `account_deleted`...; none in an end kept before reasons were):
   * the 401 their tokens get tells an account's deletion apart.
   */
  reason?: string | null;
}

/** The `reason` of the 401 a token of an ended session gets (docs/api.md §2). */
export type EndedSessionReason = Extract<UnauthorizedReason, 'SESSION_ENDED' | 'ACCOUNT_DELETED'>;

/** A session's token as the check needs it: whose, which session, and when it was issued (seconds). */
export interface SessionToken {
  userId: string;
  sessionId: string;
  issuedAt: number;
}

type Listener = (end: SessionEnd) => void;

/**
 * The ended sessions this process knows of, in memory, so that refusing a token of one costs two map
 * look-ups on a request and never a call. Fed from the durable copy at start and by every end heard;
 * each entry is kept only until the last access token it could refuse has expired.
 */
export class EndedSessions {
  readonly #sessions = new Map<string, number>();
  /** Those of `#sessions` that ended with their account. */
  readonly #ofDeletedAccounts = new Set<string>();
  readonly #notBefore = new Map<string, { seconds: number; forgetAt: number }>();
  readonly #listeners = new Set<Listener>();
  readonly #now: () => number;

  constructor({ now = Date.now }: { now?: () => number } = {}) {
    this.#now = now;
  }

  /**
   * Records `end` (again is harmless), and tells those listening (e.g. the streams of those sessions) when
   * it says something new.
   */
  learn(end: SessionEnd): void {
    const forgetAt = Date.parse(end.tokensExpireBy);
    if (forgetAt <= this.#now()) return;
    let news = false;
    for (const id of end.sessionIds) {
      const known = this.#sessions.get(id);
      if (known === undefined) news = true;
      this.#sessions.set(id, Math.max(forgetAt, known ?? 0));
      if (end.reason === 'account_deleted') this.#ofDeletedAccounts.add(id);
    }
    if (end.notBefore !== null) {
      const seconds = Math.floor(Date.parse(end.notBefore) / 1000);
      const known = this.#notBefore.get(end.userId);
      if (!known || known.seconds < seconds) {
        news = true;
        this.#notBefore.set(end.userId, { seconds, forgetAt: Math.max(forgetAt, known?.forgetAt ?? 0) });
      }
    }
    if (news) for (const listener of this.#listeners) listener(end);
  }

  /**
   * Whether a token of `token`'s session must be refused: its session ended, or all of its user's did after it was
   * issued.
   */
  refuses(token: SessionToken): boolean {
    return this.whyRefused(token) !== undefined;
  }

  /** Why a token of `token`'s session is refused, as its 401 says: undefined when it is not. */
  whyRefused({ userId, sessionId, issuedAt }: SessionToken): EndedSessionReason | undefined {
    if (this.#sessions.has(sessionId))
      return this.#ofDeletedAccounts.has(sessionId) ? 'ACCOUNT_DELETED' : 'SESSION_ENDED';
    const notBefore = this.#notBefore.get(userId);
    return notBefore !== undefined && issuedAt < notBefore.seconds ? 'SESSION_ENDED' : undefined;
  }

  /** Calls `listener` with every end learnt from now on; gives the function that stops it. */
  onEnded(listener: Listener): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** Forgets what no unexpired token can need any more. */
  prune(): void {
    const now = this.#now();
    for (const [id, forgetAt] of this.#sessions) {
      if (forgetAt > now) continue;
      this.#sessions.delete(id);
      this.#ofDeletedAccounts.delete(id);
    }
    for (const [userId, { forgetAt }] of this.#notBefore) if (forgetAt <= now) this.#notBefore.delete(userId);
  }

  get size(): number {
    return this.#sessions.size + this.#notBefore.size;
  }
}
