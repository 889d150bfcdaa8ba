import type { ServerResponse } from 'node:http';
import type { Logger } from '@recipes/logging';
import { inSpan } from '@recipes/tracing';
import type { z } from 'zod';
import type { notificationSchema } from '../schemas.js';
import { type SessionEndReason, streamEvent } from './events.js';
import { sse } from './sse.js';
import type { StreamPosition } from '../repository/streams.js';
import type { TokenSession } from '../repository/tickets.js';

/** Beyond this many missed notifications, a resuming stream says `reset` and the client reloads the list. */
export const RESUME_LIMIT = 1_000;

/**
 * What a stream sends at one place of the recipient's sequence: a new notification, or a retraction (`retracted` is its
 * id).
 */
export type MissedChange =
  { sequence: number; notification: z.input<typeof notificationSchema> } | { sequence: number; retracted: string };

/** Where a stream reads what it sends: the stored notifications, never the events that announce them. */
export interface StreamSource {
  position(recipientId: string): Promise<StreamPosition>;
  /**
   * What changed for the recipient after `sequence`, in sequence order and at most `limit`: their new
   * notifications as the API shows them (docs/api.md §7) and the retractions of those stored before; and
   * where the recipient stands now.
   */
  since(
    recipientId: string,
    sequence: number,
    limit: number,
  ): Promise<{ missed: MissedChange[]; position: StreamPosition }>;
}

export interface SessionSettings {
  keepAliveMs: number;
  retryMs: number;
  log: Logger;
  /** Told once the stream has ended, whoever ended it. */
  onEnd(): void;
}

/**
 * One open stream of one user. Whatever it is told (a new notification, a retraction, a read, the broker
 * back), it reads what changed for the recipient after the last place it sent: their sequence is commit order
 * (migrations/003_streams.sql), so nothing is skipped and nothing is sent twice, in whatever order or
 * number the prompts come. One read at a time, and at most one more waiting.
 */
export class StreamSession {
  #lastSequence = 0;
  #lastUnread: number | undefined;
  #chain: Promise<void> = Promise.resolve();
  #refreshWaiting = false;
  #started = false;
  #ended = false;
  readonly #keepAlive: NodeJS.Timeout;

  constructor(
    readonly id: string,
    readonly recipientId: string,
    /** The session of the token that opened it; none for a token from before sessions. */
    readonly tokenSession: TokenSession | undefined,
    private readonly out: ServerResponse,
    private readonly source: StreamSource,
    private readonly settings: SessionSettings,
  ) {
    this.#keepAlive = setInterval(() => this.#write(sse.comment('keep-alive')), settings.keepAliveMs);
    out.once('close', () => this.end());
  }

  /**
   * The first frames: the reconnection delay, then either what was missed after `resumeAfter` or the current unread
   * count.
   */
  start(resumeAfter: number | undefined): Promise<void> {
    this.#started = true;
    this.#write(sse.retry(this.settings.retryMs));
    return this.#enqueue(async () => {
      if (resumeAfter === undefined) {
        const position = await this.source.position(this.recipientId);
        this.#lastSequence = position.lastSequence;
        // With the id of the newest notification: a client cut off before the next one resumes from here.
        this.#sendUnread(position.unread, true, position.lastId);
      } else {
        this.#lastSequence = resumeAfter;
        await this.#catchUp();
      }
    });
  }

  /**
   * Something changed for this user: send what is new. Before `start`, nothing: its first read comes
   * after this prompt and finds the change, while a read now would start from sequence 0 and send the
   * user's whole history.
   */
  refresh(): void {
    if (!this.#started || this.#refreshWaiting || this.#ended) return;
    this.#refreshWaiting = true;
    void this.#enqueue(async () => {
      this.#refreshWaiting = false;
      // In the trace of the event that prompted it (when tracing is on): the frames it writes end that trace.
      await inSpan('notification stream write', () => this.#catchUp());
    });
  }

  /** A newer stream of the same user took this one's place. */
  replace(): void {
    this.#write(streamEvent('replaced', {}));
    this.end();
  }

  /** Its session ended (docs/api.md §11.1): the client is told why, then the stream closes. */
  endSession(reason: SessionEndReason): void {
    this.#write(sse.comment('session ended'));
    this.#write(streamEvent('session_ended', { reason }));
    this.end();
  }

  end(): void {
    if (this.#ended) return;
    this.#ended = true;
    clearInterval(this.#keepAlive);
    if (!this.out.writableEnded) this.out.end();
    this.settings.onEnd();
  }

  async #catchUp(): Promise<void> {
    const { missed, position } = await this.source.since(this.recipientId, this.#lastSequence, RESUME_LIMIT + 1);
    if (missed.length > RESUME_LIMIT) {
      this.#lastSequence = position.lastSequence;
      this.#write(streamEvent('reset', {}));
      this.#sendUnread(position.unread);
      return;
    }
    for (const change of missed) {
      // A retraction has no id of its own: a client resuming from the notification before it gets it again.
      if ('retracted' in change) this.#write(streamEvent('retracted', { id: change.retracted }));
      else this.#write(streamEvent('notification', change.notification, change.notification.id));
      this.#lastSequence = change.sequence;
    }
    this.#sendUnread(position.unread, missed.length > 0);
  }

  #sendUnread(count: number, always = true, id?: string): void {
    if (!always && count === this.#lastUnread) return;
    this.#lastUnread = count;
    this.#write(streamEvent('unread_count', { count }, id));
  }

  #enqueue(work: () => Promise<void>): Promise<void> {
    this.#chain = this.#chain.then(async () => {
      if (this.#ended) return;
      try {
        await work();
      } catch (err) {
        // The client reconnects with the last id it got, and resumes from there.
        this.settings.log.warn(
          { err, recipientId: this.recipientId },
          'a notification stream could not be read: ending it',
        );
        this.end();
      }
    });
    return this.#chain;
  }

  #write(frame: string): void {
    if (!this.#ended && !this.out.writableEnded) this.out.write(frame);
  }
}
