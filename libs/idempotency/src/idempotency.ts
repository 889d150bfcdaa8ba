import { callerOf } from '@recipes/auth';
import type { Pool } from '@recipes/db';
import { badRequest, conflict, HttpError } from '@recipes/http';
import type { FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';
import { fingerprintOf } from './fingerprint.js';
import { Gate } from './gate.js';
import { IDEMPOTENCY_KEY_HEADER, KEY_PATTERN, KEY_RULE, REPLAYED_HEADER } from './key.js';
import { findKept, keep, type KeptResponse, tryLockKey } from './repository.js';
import { KeyTransaction } from './transaction.js';

/** A first request with a key, under way: what its response is kept as, and the transaction it is kept in. */
interface Attempt {
  callerId: string;
  key: string;
  fingerprint: string;
  transaction: KeyTransaction;
}

type Outcome =
  | { kind: 'first'; attempt: Attempt }
  | { kind: 'replay'; response: KeptResponse }
  | { kind: 'in flight' }
  | { kind: 'reused' };

export interface IdempotencySettings {
  /**
   * Requests with a key that may hold a pool client at once. Such a request holds one for its whole
   * handler, whose other queries need more: were every client held so, they would all wait for one
   * another until the pool's connection timeout. Half the pool by default.
   */
  maxConcurrent?: number;
}

/** Responses 5xx and 429 say "try again": not kept, so a retry runs again. */
const isKept = (status: number) => status < 500 && status !== 429;

/**
 * `Idempotency-Key` for routes that create something. Spread `hooks` into the route's options and add
 * `idempotencyKeyHeaders` as its `headers` schema. A request without the header is not touched.
 *
 * A request with a key takes a pool client, begins a transaction and takes the key's advisory lock
 * (not free: 409). A response kept for the key within 24 hours is sent again when the method, path and
 * body match (422 when they do not). Otherwise the handler runs with that transaction shared, so its
 * `withTransaction` writes join it, and the response is kept in it before a byte is sent: both commit, or
 * (5xx, 429, a failure) neither does.
 */
export class Idempotency {
  private readonly gate: Gate;
  private readonly fingerprints = new WeakMap<FastifyRequest, string>();
  private readonly attempts = new WeakMap<FastifyRequest, Attempt>();

  constructor(
    private readonly pool: Pool,
    { maxConcurrent = Math.max(1, Math.floor((pool.options.max ?? 10) / 2)) }: IdempotencySettings = {},
  ) {
    this.gate = new Gate(maxConcurrent);
  }

  /** The route hooks; each does nothing for a request without the header. */
  readonly hooks = {
    // The body as parsed, before validation trims or drops anything.
    preValidation: (request: FastifyRequest, _reply: FastifyReply, done: HookHandlerDoneFunction) => {
      if (request.headers[IDEMPOTENCY_KEY_HEADER] !== undefined) this.fingerprints.set(request, fingerprintOf(request));
      done();
    },
    // Callback style: `done` runs the handler, and it must run inside the shared transaction.
    preHandler: (request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction) => {
      this.start(request, reply, done).catch((error: Error) => done(error));
    },
    onSend: async (request: FastifyRequest, reply: FastifyReply, payload: unknown) => {
      const attempt = this.attempts.get(request);
      if (!attempt) return payload;
      this.attempts.delete(request);
      await this.finish(attempt, reply, payload);
      return payload;
    },
  };

  private async start(request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction): Promise<void> {
    const key = request.headers[IDEMPOTENCY_KEY_HEADER];
    if (key === undefined) return done();
    // The route's headers schema has said so already; this covers a route without it.
    if (typeof key !== 'string' || !KEY_PATTERN.test(key)) {
      return done(badRequest('The request is not valid', [{ path: IDEMPOTENCY_KEY_HEADER, message: KEY_RULE }]));
    }
    const callerId = callerOf(request).id;
    const outcome = await this.begin(callerId, key, this.fingerprints.get(request) ?? fingerprintOf(request));
    switch (outcome.kind) {
      case 'in flight':
        return done(
          conflict('A request with this Idempotency-Key is still being handled; try again once it has finished'),
        );
      case 'reused':
        return done(
          new HttpError(422, 'This Idempotency-Key was used for a request with another method, path or body'),
        );
      case 'replay': {
        request.log.info({ status: outcome.response.status }, 'idempotent request replayed');
        const { status, contentType, body } = outcome.response;
        reply.code(status).type(contentType).header(REPLAYED_HEADER, 'true').send(body);
        return;
      }
      case 'first':
        this.attempts.set(request, outcome.attempt);
        return outcome.attempt.transaction.shared.run(() => done());
    }
  }

  private async begin(callerId: string, key: string, fingerprint: string): Promise<Outcome> {
    await this.gate.enter();
    const transaction = await KeyTransaction.begin(this.pool, () => this.gate.leave());
    try {
      if (!(await tryLockKey(transaction.client, callerId, key))) {
        await transaction.rollback();
        return { kind: 'in flight' };
      }
      const kept = await findKept(transaction.client, callerId, key);
      if (kept) {
        await transaction.rollback();
        return kept.fingerprint === fingerprint ? { kind: 'replay', response: kept } : { kind: 'reused' };
      }
      return { kind: 'first', attempt: { callerId, key, fingerprint, transaction } };
    } catch (error) {
      await transaction.rollback();
      throw error;
    }
  }

  /** Keeps the response with the effect, or drops both. A failure here becomes the response (503 or 500). */
  private async finish(
    { callerId, key, fingerprint, transaction }: Attempt,
    reply: FastifyReply,
    payload: unknown,
  ): Promise<void> {
    if (!isKept(reply.statusCode)) return transaction.rollback();
    if (typeof payload !== 'string') {
      await transaction.rollback();
      throw new Error('A response to an idempotent request must be text to be kept');
    }
    try {
      // Joins still running finish first: the response is kept after the last of the effect.
      await transaction.shared.close();
      await keep(transaction.client, callerId, key, fingerprint, {
        status: reply.statusCode,
        contentType: String(reply.getHeader('content-type') ?? 'application/json; charset=utf-8'),
        body: payload,
      });
    } catch (error) {
      await transaction.rollback();
      throw error;
    }
    await transaction.commit();
  }
}
