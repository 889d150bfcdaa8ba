import { type ChildProcess, spawn } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { dropDatabase, eventually, removeExchangeFamily } from '@recipes/testing';
import { type FollowedStream, followNotifications } from '@recipes/testing/sse';
import { afterAll, beforeAll, describe, expect, it, inject } from 'vitest';
import { services } from '../scripts/services.mjs';
import { apiOf, callsNotingErrors, databaseOf, settlesAt, unlimited } from './faults/support.js';
import type { Account } from './support/world.js';

/**
 * A deploy on one machine, as a new user runs it: `npm start` (scripts/start.mjs, HAProxy in front of the gateway),
 * then `npm run restart` (scripts/restart.mjs) while clients post 20 mentioned comments a second, read 50 lists a
 * second and hold 50 notification streams. Every instance of every service, the gateway included, is stopped and
 * started again in turn, and a request goes to the other instance: no client sees an error, every comment is
 * notified once, and every stream, opened again with Last-Event-ID as EventSource does, misses nothing.
 */
const STREAMS = 50;
const COMMENTS_PER_SECOND = 20;
const READS_PER_SECOND = 50;
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** `npm start` with `instances` of each service, on ports and a database of its own. */
async function startedSystem(name: string, portOffset: number, instances: number) {
  const exchange = `recipes.${name}`;
  const adminUrl = inject('databaseUrl');
  const databaseUrl = new URL(adminUrl);
  databaseUrl.pathname = `/${name}`;
  const removeTopology = async () => {
    await removeExchangeFamily(inject('amqpUrl'), exchange);
    await dropDatabase(adminUrl, name);
  };
  await removeTopology();
  const env = {
    ...process.env,
    ...unlimited,
    PORT_OFFSET: String(portOffset),
    INSTANCES: String(instances),
    DATABASE_URL: databaseUrl.toString(),
    AMQP_URL: inject('amqpUrl'),
    EVENTS_EXCHANGE: exchange,
    // With two of each, ten backend instances, and an eleventh while one starts again, each with its pool and its
    // LISTEN connections, within PostgreSQL's 100 connections.
    ...(instances > 1 ? { DATABASE_POOL_MAX: '6' } : {}),
    // Two cores carry the processes (twelve with two of each), the load and each restarted process's start-up (6 - 7 s
    // of CPU-heavy work): the gateway's loop falls behind its 50 ms guard now and then, and sheds a request with 503
    // and Retry-After (2 of about 2,000 in a quiet run with two of each). That is the machine's capacity, not the
    // restart: the guard is moved out of the way so that what is counted is what the restart costs.
    ADMISSION_LOOP_DELAY_MS: '500',
    LOG_LEVEL: 'warn',
    // A service's restart under this load, on two cores that also run the load: the time to wait for it.
    UPSTREAM_RESTART_WAIT_MS: '30000',
  };
  const supervisor: ChildProcess = spawn(process.execPath, ['scripts/start.mjs'], {
    env,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const exited = new Promise((resolve) => supervisor.once('exit', resolve));
  // What the processes log (at warn): kept for a reader of a failure.
  const logFile = join(tmpdir(), `${name}.log`);
  const log = createWriteStream(logFile);
  supervisor.stdout!.pipe(log);
  const started = new Promise<void>((resolve) =>
    supervisor.stdout!.on('data', (chunk: Buffer) => chunk.toString().includes('the API is at') && resolve()),
  );
  await Promise.race([
    started,
    exited.then((code) => {
      throw new Error(`npm start exited (${String(code)}) before it was ready`);
    }),
  ]);
  const gatewayUrl = `http://127.0.0.1:${services.find((s) => s.name === 'gateway')!.port + portOffset}`;
  const restart = () =>
    new Promise<number | null>((resolve) => {
      const command = spawn(process.execPath, ['scripts/restart.mjs'], {
        env,
        stdio: ['ignore', 'inherit', 'inherit'],
      });
      command.once('exit', resolve);
    });
  const stop = async () => {
    if (supervisor.exitCode === null) {
      supervisor.kill('SIGTERM');
      await exited;
    }
    await removeTopology();
  };
  return { gatewayUrl, databaseUrl: databaseUrl.toString(), logFile, restart, stop };
}

/** Calls `task` every `everyMs` whatever the answers (an open loop), until stopped; resolves once all have answered. */
function openLoop(everyMs: number, task: (i: number) => Promise<unknown>) {
  const inFlight = new Set<Promise<unknown>>();
  let i = 0;
  const timer = setInterval(() => {
    const call = task(i++).finally(() => inFlight.delete(call));
    inFlight.add(call);
  }, everyMs);
  return async () => {
    clearInterval(timer);
    await Promise.all(inFlight);
  };
}

describe.each([
  { instances: 1, portOffset: 6600 },
  { instances: 2, portOffset: 6700 },
])('npm run restart with $instances instance(s) of each service, under load', ({ instances, portOffset }) => {
  let system: Awaited<ReturnType<typeof startedSystem>>;
  let streams: FollowedStream[] = [];
  const name = `recipes_restart_${instances}`;
  beforeAll(async () => {
    system = await startedSystem(name, portOffset, instances);
  }, 180_000);
  afterAll(async () => {
    await Promise.all(streams.map((stream) => stream.stop()));
    await system?.stop();
  }, 60_000);

  it('gives clients no error, notifies every comment once, and the streams miss nothing', async () => {
    const api = apiOf({ urlOf: () => system.gatewayUrl } as never);
    const db = databaseOf({ databaseUrl: system.databaseUrl } as never);
    const errors: string[] = [];
    try {
      const author = await api.register(`restart_author_${instances}`);
      const mentioned: Account[] = [];
      for (let i = 0; i < STREAMS; i++) mentioned.push(await api.register(`restart_${instances}_${i}`));
      const recipeId = await api.recipe(author);
      streams = mentioned.map((account) =>
        followNotifications(
          `${system.gatewayUrl}/api/notifications/stream`,
          { authorization: `Bearer ${account.token}` },
          (why) => errors.push(`stream of ${account.user.username}: ${why}`),
        ),
      );
      await Promise.all(streams.map((stream) => stream.ready));

      const posted = new Map<string, number>();
      const call = callsNotingErrors(errors);
      const writes = openLoop(1_000 / COMMENTS_PER_SECOND, async (i) => {
        const who = i % STREAMS;
        const reply = await call(`comment ${i}`, () =>
          api.call(
            'POST',
            `/recipes/${recipeId}/comments`,
            { content: `Restart @${mentioned[who]!.user.username} (${i})` },
            author.token,
          ),
        );
        if (reply?.status === 201) posted.set(reply.body.comment.id, who);
      });
      const reads = openLoop(1_000 / READS_PER_SECOND, (i) =>
        i % 2 === 0
          ? call(`comment list ${i}`, () => api.call('GET', `/recipes/${recipeId}/comments?limit=5`))
          : call(`notification list ${i}`, () =>
              api.call('GET', '/notifications?limit=5', undefined, mentioned[i % STREAMS]!.token),
            ),
      );

      await pause(1_000);
      expect(await system.restart(), 'npm run restart').toBe(0);
      await pause(1_000);
      await Promise.all([writes(), reads()]);

      expect(errors, `the processes' lines are in ${system.logFile}`).toEqual([]);
      expect(posted.size).toBeGreaterThan(100);
      // Every comment posted, notified once, to the one it mentions.
      await settlesAt(() => db.count('SELECT count(*)::int AS count FROM notifications.notifications'), posted.size, {
        timeoutMs: 30_000,
      });
      const { rows } = await db.query<{ comment_id: string; recipient_id: string; id: string }>(
        'SELECT comment_id, recipient_id, id::text AS id FROM notifications.notifications',
      );
      expect(new Set(rows.map((row) => row.comment_id))).toEqual(new Set(posted.keys()));
      for (const row of rows) expect(row.recipient_id).toBe(mentioned[posted.get(row.comment_id)!]!.user.id);

      // Every stream saw each of its user's notifications once, across its reopenings: the gateway's restart at
      // least ended each.
      await eventually(
        async () =>
          streams.every(
            (stream, who) =>
              stream.seen.length >= rows.filter((row) => row.recipient_id === mentioned[who]!.user.id).length,
          )
            ? true
            : undefined,
        15_000,
      ).catch(() => undefined);
      for (const [who, stream] of streams.entries()) {
        const expected = rows.filter((row) => row.recipient_id === mentioned[who]!.user.id).map((row) => row.id);
        expect(stream.seen.length, `${mentioned[who]!.user.username}: seen twice`).toBe(new Set(stream.seen).size);
        expect(new Set(stream.seen), mentioned[who]!.user.username).toEqual(new Set(expected));
        expect(stream.opened()).toBeGreaterThan(1);
      }
    } finally {
      await db.close();
    }
  }, 300_000);
});
