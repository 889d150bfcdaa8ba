import { createHash, randomBytes } from 'node:crypto';
import type { Queryable } from '@recipes/db';

/**
 * Stream tickets (docs/api.md §9, migrations/003_streams.sql and 005): single use, and a used one reopens
 * its stream only to resume it. Only a hash of a ticket is kept.
 */
const hashOf = (ticket: string) => createHash('sha256').update(ticket).digest();

/** The session of the token a ticket was taken with, and when that token was issued (seconds). */
export interface TokenSession {
  id: string;
  issuedAt: number;
}

/** Whose a ticket is, and the session it belongs to (none for a token from before sessions). */
export interface TicketHolder {
  recipientId: string;
  session?: TokenSession;
}

const holderColumns = `recipient_id AS "recipientId", session_id AS "sessionId", token_issued_at AS "issuedAt"`;
type HolderRow = { recipientId: string; sessionId: string | null; issuedAt: string | null };
const holderOf = ({ recipientId, sessionId, issuedAt }: HolderRow): TicketHolder =>
  sessionId === null ? { recipientId } : { recipientId, session: { id: sessionId, issuedAt: Number(issuedAt) } };

/** How long after its first use a ticket may still resume its stream, at most. */
export const TICKET_RESUME_HOURS = 24;
/** How soon after its stream ended a used ticket must resume it (EventSource reconnects after `retry`, 3 s). */
export const TICKET_RESUME_WINDOW_SECONDS = 120;

/**
 * A new single-use ticket of `recipientId`, valid `ttlSeconds`. The user keeps at most `perUser` unused
 * ones: past that the oldest is revoked (a browser with many tabs opens its streams in turn, each with the
 * ticket it has just taken). Their tickets that can no longer open or resume a stream go on the way, and
 * everyone's a day past their expiry (no ticket does anything by then).
 */
export async function issueTicket(
  db: Queryable,
  { recipientId, session }: TicketHolder,
  ttlSeconds: number,
  perUser: number,
): Promise<string> {
  const ticket = randomBytes(32).toString('base64url');
  await db.query(
    `WITH expired AS (DELETE FROM stream_tickets WHERE expires_at < now() - make_interval(hours => $4))
     INSERT INTO stream_tickets (ticket_hash, recipient_id, expires_at, session_id, token_issued_at)
     VALUES ($1, $2, now() + make_interval(secs => $3), $5, $6)`,
    [hashOf(ticket), recipientId, ttlSeconds, TICKET_RESUME_HOURS, session?.id ?? null, session?.issuedAt ?? null],
  );
  // After the insert, in a statement of its own: concurrent issues each see the others' tickets once
  // committed, so that however they interleave the user is left with `perUser` unused ones at most.
  await db.query(
    `DELETE FROM stream_tickets
      WHERE recipient_id = $1
        AND (ticket_hash IN (SELECT ticket_hash FROM stream_tickets
                              WHERE recipient_id = $1 AND used_at IS NULL AND expires_at > now()
                              ORDER BY expires_at DESC, ticket_hash OFFSET $2)
             OR (used_at IS NULL AND expires_at <= now())
             OR used_at <= now() - make_interval(hours => $3)
             OR stream_ended_at <= now() - make_interval(secs => $4)
             -- Used, but its stream never opened (the open failed): nothing to resume.
             OR (resume_from IS NULL AND used_at <= now() - make_interval(secs => $4)))`,
    [recipientId, perUser, TICKET_RESUME_HOURS, TICKET_RESUME_WINDOW_SECONDS],
  );
  return ticket;
}

/** The holder of a fresh ticket, using it up; undefined when it is forged, expired or used already. */
export async function redeemTicket(db: Queryable, ticket: string): Promise<TicketHolder | undefined> {
  const { rows } = await db.query<HolderRow>(
    `UPDATE stream_tickets SET used_at = now()
      WHERE ticket_hash = $1 AND used_at IS NULL AND expires_at > now()
     RETURNING ${holderColumns}`,
    [hashOf(ticket)],
  );
  return rows[0] && holderOf(rows[0]);
}

/**
 * A used ticket that may still resume its stream: first used within `TICKET_RESUME_HOURS`, its stream
 * opened (so `resumeFrom` is known), and that stream still open (or its instance gone without saying)
 * or ended within `TICKET_RESUME_WINDOW_SECONDS`. A resume must also name an event of that stream, at or
 * after `resumeFrom`: the caller checks that.
 */
export async function findResumableTicket(
  db: Queryable,
  ticket: string,
): Promise<(TicketHolder & { resumeFrom: number }) | undefined> {
  const { rows } = await db.query<HolderRow & { resumeFrom: string }>(
    `SELECT ${holderColumns}, resume_from AS "resumeFrom" FROM stream_tickets
      WHERE ticket_hash = $1 AND used_at > now() - make_interval(hours => $2) AND resume_from IS NOT NULL
        AND (stream_ended_at IS NULL OR stream_ended_at > now() - make_interval(secs => $3))`,
    [hashOf(ticket), TICKET_RESUME_HOURS, TICKET_RESUME_WINDOW_SECONDS],
  );
  const row = rows[0];
  return row && { ...holderOf(row), resumeFrom: Number(row.resumeFrom) };
}

/**
 * A stream opened by `ticket`, resuming after `resumeAfter` or from the recipient's newest notification:
 * where its first stream started is kept (the oldest place a client of it may resume from), and it is open.
 */
export async function ticketStreamOpened(
  db: Queryable,
  ticket: string,
  resumeAfter: number | undefined,
): Promise<void> {
  await db.query(
    `UPDATE stream_tickets t
        SET stream_ended_at = NULL,
            resume_from = coalesce(t.resume_from, $2, (SELECT max(sequence) FROM notifications n WHERE n.recipient_id = t.recipient_id), 0)
      WHERE ticket_hash = $1`,
    [hashOf(ticket), resumeAfter ?? null],
  );
}

/** The stream `ticket` opened has ended: its client has `TICKET_RESUME_WINDOW_SECONDS` to resume it. */
export async function ticketStreamEnded(db: Queryable, ticket: string): Promise<void> {
  await db.query('UPDATE stream_tickets SET stream_ended_at = now() WHERE ticket_hash = $1', [hashOf(ticket)]);
}
