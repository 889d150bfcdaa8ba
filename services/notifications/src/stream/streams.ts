import type { ServerResponse } from 'node:http';
import { createEvent, newId, notificationsStreamsReplaced } from '@recipes/contracts';
import { type Pool, withTransaction } from '@recipes/db';
import type { UserDirectory } from '@recipes/directory';
import type { Logger } from '@recipes/logging';
import { enqueue } from '@recipes/outbox';
import { toNotification } from '../notifications.js';
import { closeStream, findPosition, findSequence, findSince, openStream } from '../repository/streams.js';
import {
  findResumableTicket,
  issueTicket,
  redeemTicket,
  type TicketHolder,
  ticketStreamEnded,
  ticketStreamOpened,
} from '../repository/tickets.js';
import { StreamHub } from './hub.js';
import { type MissedChange, type StreamSource, StreamSession } from './session.js';
import { sse } from './sse.js';

export const TICKET_TTL_SECONDS = 60;
/** What `EventSource` waits before it reconnects, sent as the stream's first frame. */
export const RETRY_MS = 3_000;
/** Open streams per user, on all instances together: a sixth replaces the oldest. */
export const STREAMS_PER_USER = 5;

/** Sessions that ended (`user.session.ended`), as this process knows them (libs/runtime keeps them). */
export interface SessionEnds {
  refuses(token: { userId: string; sessionId: string; issuedAt: number }): boolean;
  /** Why a token of the session is refused (its 401's `reason`): undefined while the session lives. */
  whyRefused(token: {
    userId: string;
    sessionId: string;
    issuedAt: number;
  }): 'SESSION_ENDED' | 'ACCOUNT_DELETED' | undefined;
  onEnded(listener: (end: SessionEnd) => void): () => void;
}

/** One end: these sessions of the user, or (`notBefore`) every session of theirs whose token was issued earlier. */
export interface SessionEnd {
  userId: string;
  sessionIds: readonly string[];
  notBefore: string | null;
}

export type { TicketHolder };

export interface StreamSettings {
  keepAliveMs: number;
  /** Unused tickets a user may hold; one more revokes the oldest. */
  ticketsPerUser: number;
}

/** The real-time side of notifications (docs/api.md §9): tickets, and the streams this instance holds. */
export function streams(
  pool: Pool,
  directory: UserDirectory,
  { keepAliveMs, ticketsPerUser }: StreamSettings,
  sessionEnds: SessionEnds,
) {
  const hub = new StreamHub();
  // A session that ends closes its streams here within the moment this process hears of it (docs/api.md §11.1).
  sessionEnds.onEnded((end) => hub.endSessions(end));

  const source: StreamSource = {
    position: (recipientId) => findPosition(pool, recipientId),
    async since(recipientId, sequence, limit) {
      const { changes, position } = await findSince(pool, recipientId, sequence, limit);
      // An actor the read model does not know yet (registered a moment ago) is asked of the users service;
      // as in the listing, one nobody knows (only a forged event names one) is left out.
      const unknown = changes.flatMap((change) =>
        change.kind === 'notification' && !change.record.actor ? [change.record.actorId] : [],
      );
      const fetched = unknown.length === 0 ? new Map() : await directory.findByIds([...new Set(unknown)]);
      const missed = changes.flatMap((change): MissedChange[] => {
        if (change.kind === 'retracted') return [{ sequence: change.sequence, retracted: change.id }];
        const { actor, ...record } = change.record;
        const known = actor ?? fetched.get(record.actorId);
        if (!known) return [];
        const { id, username, avatarUrl } = known;
        return [{ sequence: record.sequence, notification: toNotification(record, { id, username, avatarUrl }) }];
      });
      return { missed, position };
    },
  };

  let closing = false;

  return {
    hub,
    /** Ends every stream held here, and any opened from now on at once: their clients reconnect to another instance. */
    endAll(): void {
      closing = true;
      hub.endAll();
    },
    /**
     * A single-use ticket for `holder` (the recipient, and the session of their token), valid for
     * `TICKET_TTL_SECONDS`; their oldest past `ticketsPerUser` unused ones is revoked.
     */
    issueTicket: (holder: TicketHolder) => issueTicket(pool, holder, TICKET_TTL_SECONDS, ticketsPerUser),
    /**
     * Whom a fresh ticket was issued to, using it up; undefined when it is forged, expired or used. Its session may
     * have ended since: see `sessionEndOf`.
     */
    redeemTicket: (ticket: string) => redeemTicket(pool, ticket),
    /** Why the session of a ticket's holder refuses it (its 401's `reason`): undefined while it lives. */
    sessionEndOf: ({ recipientId, session }: TicketHolder) =>
      session && sessionEnds.whyRefused({ userId: recipientId, sessionId: session.id, issuedAt: session.issuedAt }),
    /**
     * The user of a used `ticket` and where its stream resumes, when it may resume it after the notification
     * `lastEventId` (see `findResumableTicket`): an event that stream sent, so one at or after where it
     * started. Undefined otherwise: a URL read in a log is not enough to reopen a stream. Its session may have
     * ended since: see `sessionEndOf`.
     */
    async resumeByTicket(
      ticket: string,
      lastEventId: string,
    ): Promise<(TicketHolder & { resumeAfter: number }) | undefined> {
      const resumable = await findResumableTicket(pool, ticket);
      if (!resumable) return undefined;
      const { resumeFrom, ...holder } = resumable;
      const resumeAfter = await findSequence(pool, resumable.recipientId, lastEventId);
      return resumeAfter !== undefined && resumeAfter >= resumeFrom ? { ...holder, resumeAfter } : undefined;
    },
    /** Where a stream resuming after the recipient's notification `id` starts; undefined when it is not theirs. */
    resumePoint: (recipientId: string, id: string) => findSequence(pool, recipientId, id),

    /**
     * Opens a stream of `recipientId` on `response`, resuming after `resumeAfter` when given; `ticket`, when it
     * opened it, learns where the stream started and when it ends (see repository/tickets.ts). The stream
     * ends with `session`, the session of the token that opened it (directly or by a ticket).
     */
    async open(
      { recipientId, session: tokenSession }: TicketHolder,
      response: ServerResponse,
      resumeAfter: number | undefined,
      log: Logger,
      correlationId: string,
      ticket?: string,
    ): Promise<void> {
      if (closing) {
        // Shutting down: the client is told when to come back, and reconnects elsewhere.
        response.end(sse.retry(RETRY_MS));
        return;
      }
      const id = newId();
      let opened: Promise<void> = Promise.resolve();
      const session: StreamSession = new StreamSession(id, recipientId, tokenSession, response, source, {
        keepAliveMs,
        retryMs: RETRY_MS,
        log,
        onEnd: () => {
          hub.remove(session);
          const forget = async () => {
            await closeStream(pool, id);
            if (ticket !== undefined) await ticketStreamEnded(pool, ticket);
          };
          opened
            .then(forget, forget)
            .catch((err: unknown) => log.warn({ err }, 'a closed stream could not be forgotten'));
        },
      });
      // Held before the first read: whatever is stored from now on reaches this stream, by the read or by a prompt.
      hub.add(session);
      // Its session may have ended since its token or ticket was checked, before the hub held it.
      if (
        tokenSession &&
        sessionEnds.refuses({ userId: recipientId, sessionId: tokenSession.id, issuedAt: tokenSession.issuedAt })
      ) {
        session.endSession('ended');
        return;
      }
      opened = withTransaction(pool, async (tx) => {
        if (ticket !== undefined) await ticketStreamOpened(tx, ticket, resumeAfter);
        const replaced = await openStream(tx, id, recipientId, STREAMS_PER_USER);
        if (replaced.length === 0) return;
        const event = createEvent(
          notificationsStreamsReplaced,
          { recipientId, streamIds: replaced },
          { producer: 'notifications', correlationId },
        );
        await enqueue(tx, event);
      });
      try {
        await opened;
        await session.start(resumeAfter);
      } catch (err) {
        // The client reconnects and resumes.
        log.warn({ err }, 'a notification stream could not be opened: ending it');
        session.end();
      }
    },
  };
}

export type Streams = ReturnType<typeof streams>;
