import { randomUUID } from 'node:crypto';
import { authPlugin, generateSigningKeyPair, tokenIssuer } from '@recipes/auth';
import { createPool, migrate, type Pool, withTransaction } from '@recipes/db';
import { type App, createApp, HttpError, notFound, sendProblem } from '@recipes/http';
import { createLogger } from '@recipes/logging';
import { createTestDatabase, type TestDatabase } from '@recipes/testing';
import { z } from 'zod';
import { Idempotency, idempotencyKeyHeaders, idempotencyMigrations, type IdempotencySettings } from '../src/index.js';

export const silentLogger = createLogger({ service: 'idempotency-test', level: 'silent' });

/** What the handler does after its effect (or, for 'not found', instead of it). */
export type Outcome = 'created' | 'not found' | 'unavailable' | 'rate limited' | 'crash' | 'connection lost';

/** A promise settled from outside. */
export function deferred<T = void>() {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((settle) => (resolve = settle));
  return { promise, resolve };
}

/** Stops the next request for a name at the start of its handler, until the test lets it go. */
export interface Hold {
  /** Resolves once the handler has begun: the request holds its key. */
  reached: Promise<void>;
  release(): void;
}

const thingBody = z.object({ name: z.string(), note: z.string().optional() });

/**
 * A service with one effect, a row in `things`, created by `POST /api/things` (and `/api/other-things`)
 * inside `withTransaction`, as the real routes create theirs; what each request does next is scripted
 * by name. Built with `createApp`, the auth plugin and a real pool on a database of its own.
 */
export async function thingsService(settings: IdempotencySettings & { poolMax?: number } = {}) {
  const database: TestDatabase = await createTestDatabase();
  await migrate({ databaseUrl: database.url, schema: 'svc', sets: [idempotencyMigrations], logger: silentLogger });
  const pool: Pool = createPool({
    connectionString: database.url,
    schema: 'svc',
    max: settings.poolMax ?? 10,
    applicationName: 'idempotency-test',
    logger: silentLogger,
  });
  await pool.query('CREATE TABLE things (id serial PRIMARY KEY, name text NOT NULL)');

  const keys = generateSigningKeyPair();
  const sign = tokenIssuer({ privateKey: keys.privateKey, issuer: 'test', audience: 'test', ttlSeconds: 3600 });
  const plans = new Map<string, Outcome[]>();
  const holds = new Map<string, { reached: () => void; released: Promise<void> }>();
  let handled = 0;

  const app: App = await createApp({ title: 'things', logger: silentLogger });
  await app.register(authPlugin, { publicKey: keys.publicKey, issuer: 'test', audience: 'test' });
  const idempotency = new Idempotency(pool, settings);

  for (const url of ['/api/things', '/api/other-things']) {
    app.post(
      url,
      {
        onRequest: app.auth.required,
        ...idempotency.hooks,
        schema: { headers: idempotencyKeyHeaders, body: thingBody },
      },
      async (request, reply) => {
        handled += 1;
        const { name } = request.body;
        const hold = holds.get(name);
        if (hold) {
          holds.delete(name);
          hold.reached();
          await hold.released;
        }
        // A read outside the transaction, as the real routes' look-ups are: a pool client of its own.
        await pool.query('SELECT count(*) FROM things');
        const outcome = plans.get(name)?.shift() ?? 'created';
        if (outcome === 'not found') throw notFound('No such thing');
        const thing = await withTransaction(pool, async (tx) => {
          const { rows } = await tx.query<{ id: number; pid: number }>(
            'INSERT INTO things (name) VALUES ($1) RETURNING id, pg_backend_pid() AS pid',
            [name],
          );
          return rows[0]!;
        });
        switch (outcome) {
          case 'unavailable':
            throw new HttpError(503, 'The service is unavailable, try again later');
          case 'rate limited':
            return sendProblem(request, reply, 429, 'Too many requests, try again later');
          case 'crash':
            throw new Error('crashed after the effect');
          case 'connection lost':
            await pool.query('SELECT pg_terminate_backend($1)', [thing.pid]);
            break;
        }
        return reply.code(201).send({ id: thing.id, name });
      },
    );
  }
  await app.ready();

  return {
    app,
    pool,
    /** How many times a handler has run, replays and refusals not included. */
    handled: () => handled,
    caller() {
      const user = { id: randomUUID(), username: `user_${randomUUID().slice(0, 8)}` };
      return { ...user, authorization: `Bearer ${sign(user)}` };
    },
    /** The next requests for `name` do these, in order; then they create. */
    plan(name: string, ...outcomes: Outcome[]) {
      plans.set(name, outcomes);
    },
    hold(name: string): Hold {
      const reached = deferred();
      const released = deferred();
      holds.set(name, { reached: reached.resolve, released: released.promise });
      return { reached: reached.promise, release: released.resolve };
    },
    async things(name: string): Promise<number> {
      const { rows } = await pool.query<{ count: number }>(
        'SELECT count(*)::int AS count FROM things WHERE name = $1',
        [name],
      );
      return rows[0]!.count;
    },
    async keptKeys(callerId: string): Promise<string[]> {
      const { rows } = await pool.query<{ key: string }>(
        'SELECT key FROM idempotency_keys WHERE caller_id = $1 ORDER BY key',
        [callerId],
      );
      return rows.map((row) => row.key);
    },
    async close() {
      await app.close();
      await pool.end();
      await database.drop();
    },
  };
}

export type ThingsService = Awaited<ReturnType<typeof thingsService>>;
