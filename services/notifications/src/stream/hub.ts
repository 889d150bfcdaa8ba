import type { SessionEndReason } from './events.js';
import type { StreamSession } from './session.js';

/** What ended (see `SessionEnds` in streams.ts): these sessions of the user, or all issued before `notBefore`. */
interface Ended {
  userId: string;
  sessionIds: readonly string[];
  notBefore: string | null;
  reason?: SessionEndReason;
}

/** The streams this instance holds, by user. */
export class StreamHub {
  readonly #byRecipient = new Map<string, Set<StreamSession>>();

  get size(): number {
    let count = 0;
    for (const sessions of this.#byRecipient.values()) count += sessions.size;
    return count;
  }

  add(session: StreamSession): void {
    const sessions = this.#byRecipient.get(session.recipientId) ?? new Set();
    sessions.add(session);
    this.#byRecipient.set(session.recipientId, sessions);
  }

  /** Called by a session as it ends. */
  remove(session: StreamSession): void {
    const sessions = this.#byRecipient.get(session.recipientId);
    sessions?.delete(session);
    if (sessions?.size === 0) this.#byRecipient.delete(session.recipientId);
  }

  /** Something changed for `recipientId`: each of their streams here sends what is new. */
  refresh(recipientId: string): void {
    for (const session of this.#byRecipient.get(recipientId) ?? []) session.refresh();
  }

  /** After the broker was away: any user may have missed something. */
  refreshAll(): void {
    for (const sessions of this.#byRecipient.values()) for (const session of sessions) session.refresh();
  }

  /** Newer streams of the user took the place of these, wherever they are: the ones held here end. */
  replace(recipientId: string, streamIds: readonly string[]): void {
    for (const session of [...(this.#byRecipient.get(recipientId) ?? [])])
      if (streamIds.includes(session.id)) session.replace();
  }

  /** Sessions ended: the streams here that their tokens opened say so and close. */
  endSessions({ userId, sessionIds, notBefore, reason = 'ended' }: Ended): void {
    const notBeforeSeconds = notBefore === null ? undefined : Math.floor(Date.parse(notBefore) / 1000);
    for (const session of [...(this.#byRecipient.get(userId) ?? [])]) {
      const token = session.tokenSession;
      if (!token) continue;
      if (sessionIds.includes(token.id) || (notBeforeSeconds !== undefined && token.issuedAt < notBeforeSeconds))
        session.endSession(reason);
    }
  }

  /** On shutdown: each client reconnects, to another instance, and resumes where it was. */
  endAll(): void {
    for (const sessions of [...this.#byRecipient.values()]) for (const session of [...sessions]) session.end();
  }
}
