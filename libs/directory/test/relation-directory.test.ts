import {
  createEvent,
  newId,
  userBlocked,
  userMuted,
  type UserRelation,
  userUnblocked,
  userUnmuted,
} from '@recipes/contracts';
import { createPool, migrate, type Pool } from '@recipes/db';
import { createLogger } from '@recipes/logging';
import { dispatcher } from '@recipes/messaging';
import { outboxMigrations } from '@recipes/outbox';
import { createTestDatabase, type TestDatabase } from '@recipes/testing';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  RelationDirectory,
  relationDirectoryMigrations,
  userBlockedHandler,
  userMutedHandler,
  userUnblockedHandler,
  userUnmutedHandler,
} from '../src/index.js';

const log = createLogger({ service: 'test', level: 'silent' });
let database: TestDatabase;
let pool: Pool;
let relations: RelationDirectory;
let dispatch: ReturnType<typeof dispatcher>;

beforeAll(async () => {
  database = await createTestDatabase();
  await migrate({
    databaseUrl: database.url,
    schema: 'svc',
    sets: [outboxMigrations, relationDirectoryMigrations],
    logger: log,
  });
  pool = createPool({ connectionString: database.url, schema: 'svc', applicationName: 'directory-test', logger: log });
  relations = new RelationDirectory(pool);
  dispatch = dispatcher([
    userMutedHandler(relations),
    userUnmutedHandler(relations),
    userBlockedHandler(relations),
    userUnblockedHandler(relations),
  ]);
});

afterAll(async () => {
  await pool.end();
  await database.drop();
});

const definitions = { mute: [userUnmuted, userMuted], block: [userUnblocked, userBlocked] } as const;

/**
 * The events of a pair's history, as the users service writes them: each step starts or ends a mute or a
 * block (a step that changes nothing writes nothing), each event carrying the whole state and the next revision.
 */
function history(userId: string, targetId: string, steps: { kind: 'mute' | 'block'; on: boolean }[]) {
  const state = { muted: false, blocked: false, lastUnblockedAt: null as string | null };
  const events = [];
  let revision = 0;
  let clock = Date.parse('2026-11-22T10:00:00.000Z');
  for (const { kind, on } of steps) {
    const field = kind === 'mute' ? 'muted' : 'blocked';
    if (state[field] === on) continue;
    clock += 1_000;
    state[field] = on;
    if (kind === 'block' && !on) state.lastUnblockedAt = new Date(clock).toISOString();
    revision += 1;
    const relation: UserRelation = { userId, targetId, ...state, revision, changedAt: new Date(clock).toISOString() };
    events.push(createEvent(definitions[kind][on ? 1 : 0], relation, { producer: 'users', correlationId: 'test' }));
  }
  return { events, final: { ...state, revision } };
}

const held = async (userId: string, targetId: string) =>
  (
    await pool.query(
      `SELECT muted, blocked, to_char(last_unblocked_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS "lastUnblockedAt", revision
         FROM user_relations WHERE user_id = $1 AND target_id = $2`,
      [userId, targetId],
    )
  ).rows[0];

describe('RelationDirectory', () => {
  it('converges on the newest state of a pair whatever order its events come in, and however often', async () => {
    const step = fc.record({ kind: fc.constantFrom('mute' as const, 'block' as const), on: fc.boolean() });
    await fc.assert(
      fc.asyncProperty(
        fc.array(step, { minLength: 1, maxLength: 8 }),
        fc.infiniteStream(fc.nat()),
        async (steps, picks) => {
          const [userId, targetId] = [newId(), newId()];
          const { events, final } = history(userId, targetId, steps);
          fc.pre(events.length > 0);
          // Every event at least once, some twice, in an order the stream picks.
          const deliveries = [...events, ...events.filter((_, i) => i % 2 === 0)];
          const order = [];
          const it = picks[Symbol.iterator]();
          while (deliveries.length > 0) order.push(deliveries.splice(it.next().value % deliveries.length, 1)[0]!);
          for (const event of order) await dispatch(event, log);
          expect(await held(userId, targetId)).toEqual(final);
        },
      ),
      { numRuns: 40 },
    );
  });

  it('tells who among some users blocks an actor; a mute is not a block', async () => {
    const [actor, blocker, muter, stranger] = [newId(), newId(), newId(), newId()];
    await dispatch(history(blocker, actor, [{ kind: 'block', on: true }]).events[0]!, log);
    await dispatch(history(muter, actor, [{ kind: 'mute', on: true }]).events[0]!, log);
    expect(await relations.blockersOf(actor, [blocker, muter, stranger])).toEqual(new Set([blocker]));
    expect(await relations.blocks(blocker, actor)).toBe(true);
    expect(await relations.blocks(actor, blocker)).toBe(false);
    expect(await relations.blockersOf(actor, [])).toEqual(new Set());
  });
});
