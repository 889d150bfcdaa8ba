import { commentMentionCreated, createEvent, type EventEnvelope, newId } from '@recipes/contracts';
import pg from 'pg';
import { expect } from 'vitest';
import type { StartedSystem } from '../../scripts/system.mjs';
import { jsonClient } from '../support/http.js';

/** Lifts the per-person and per-address limits, which a burst from one test client would hit. */
export const unlimited = {
  RATE_LIMIT_ENABLED: 'false',
  COMMENT_LIMIT_PER_MINUTE: '1000000',
  NOTIFICATION_BUDGET_PER_HOUR: '1000000',
  REGISTER_LIMIT_PER_ADDRESS: '1000000',
  LOGIN_LIMIT_PER_ADDRESS: '1000000',
};

export interface Reply {
  status: number;
  /** Parsed JSON; each caller checks the shape it needs. */
  body: any;
}

export interface Account {
  user: { id: string; username: string };
  token: string;
}

/** A client of the system's public API, through the gateway. */
export function apiOf(system: StartedSystem) {
  const call = jsonClient(`${system.urlOf('gateway')}/api`);

  return {
    call,
    async register(username: string): Promise<Account> {
      const response = await call('POST', '/auth/register', { username, password: 'correct horse' });
      expect(response.status, JSON.stringify(response.body)).toBe(201);
      return response.body;
    },
    async recipe(author: Account): Promise<string> {
      const response = await call(
        'POST',
        '/recipes',
        { title: 'Faults', cameraModel: 'X100V', filmSimulation: 'Classic Chrome' },
        author.token,
      );
      expect(response.status, JSON.stringify(response.body)).toBe(201);
      return response.body.recipe.id;
    },
    /** Comments on `recipeId` mentioning `mentioned`; one call, whatever it answers. */
    mention: (author: Account, recipeId: string, mentioned: Account, n = 0) =>
      call(
        'POST',
        `/recipes/${recipeId}/comments`,
        { content: `Look, @${mentioned.user.username} (${n})` },
        author.token,
      ),
    async unreadCount(account: Account): Promise<number> {
      const response = await call('GET', '/notifications/unread-count', undefined, account.token);
      expect(response.status, JSON.stringify(response.body)).toBe(200);
      return response.body.count;
    },
  };
}

export type Api = ReturnType<typeof apiOf>;

/**
 * Makes calls that note in `errors` what a client would see go wrong (an answer of 300 or more, or none), one line
 * each, named by `what`; a call resolves with the reply, or undefined when there was none.
 */
export function callsNotingErrors(errors: string[]) {
  return async (what: string, request: () => ReturnType<Api['call']>) => {
    try {
      const reply = await request();
      if (reply.status >= 300) errors.push(`${what}: ${reply.status} ${JSON.stringify(reply.body)}`);
      return reply;
    } catch (error) {
      errors.push(`${what}: ${String(error)}`);
      return undefined;
    }
  };
}

/** Runs `task(i)` for i in [0, count) with at most `concurrency` at once; results in order. */
export async function inParallel<T>(count: number, concurrency: number, task: (i: number) => Promise<T>): Promise<T[]> {
  const results = new Array<T>(count);
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(concurrency, count) }, async () => {
      while (next < count) {
        const i = next++;
        results[i] = await task(i);
      }
    }),
  );
  return results;
}

/** How many of each status, e.g. `{ 201: 500 }`: a failing assertion shows them all at once. */
export function statusCounts(replies: Array<{ status: number }>): Record<number, number> {
  const counts: Record<number, number> = {};
  for (const { status } of replies) counts[status] = (counts[status] ?? 0) + 1;
  return counts;
}

/** Polls `read` until it returns `expected`, then checks it still does a little later (nothing doubled late). */
export async function settlesAt<T>(
  read: () => Promise<T>,
  expected: T,
  { timeoutMs, stableMs = 1_000 }: { timeoutMs: number; stableMs?: number },
): Promise<number> {
  const started = Date.now();
  let last: T | undefined;
  while (Date.now() - started < timeoutMs) {
    last = await read();
    if (last === expected) break;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  expect(last, `after ${Date.now() - started} ms`).toBe(expected);
  const tookMs = Date.now() - started;
  await new Promise((resolve) => setTimeout(resolve, stableMs));
  expect(await read(), `${stableMs} ms after it first reached ${String(expected)}`).toBe(expected);
  return tookMs;
}

/** Direct SQL on the system's database, to count what the services stored. */
export function databaseOf(system: StartedSystem) {
  const pool = new pg.Pool({ connectionString: system.databaseUrl, max: 2 });
  // A restarted server drops idle connections; the pool makes new ones.
  pool.on('error', () => undefined);
  return {
    async count(sql: string, params: unknown[] = []): Promise<number> {
      const { rows } = await pool.query<{ count: number }>(sql, params);
      return rows[0]!.count;
    },
    query: <R extends pg.QueryResultRow>(sql: string, params: unknown[] = []) => pool.query<R>(sql, params),
    close: () => pool.end(),
  };
}

export const notificationsCount = 'SELECT count(*)::int AS count FROM notifications.notifications';

/** A `comment.mention.created` event as the comments service would publish it, about made-up ids. */
export function mentionEvent(mentionedUserId = newId()): EventEnvelope {
  return createEvent(
    commentMentionCreated,
    {
      kind: 'recipe_comment',
      mentionId: newId(),
      mentionedUserId,
      actorId: newId(),
      commentId: newId(),
      targetType: 'recipe',
      targetId: newId(),
      createdAt: new Date().toISOString(),
    },
    { producer: 'comments', correlationId: newId() },
  );
}

/** The system's topic exchange, as `startSystem` names it. */
export const exchangeOf = (name: string) => `recipes.${name}`;
/** A service's queue on that exchange (see `startBackendService`). */
export const queueOf = (name: string, service: string) => `${exchangeOf(name)}.${service}`;
