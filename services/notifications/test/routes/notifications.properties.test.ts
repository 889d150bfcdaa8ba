import { newId } from '@recipes/contracts';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  bearer,
  expectProblem,
  mentionEvent,
  type NotificationsHarness,
  notificationsHarness,
  type TestUser,
} from '../support.js';

/** Whatever a client sends, the answer is never a 500, and nobody's notifications but the caller's change. */
let harness: NotificationsHarness;
let eve: TestUser;
let bob: TestUser;
let bobsIds: string[];
beforeAll(async () => {
  harness = await notificationsHarness();
  const ada = await harness.knownUser('Ada_Odd');
  [eve, bob] = await Promise.all([harness.knownUser('Eve_Odd'), harness.knownUser('Bob_Odd')]);
  for (let i = 0; i < 5; i++) await harness.deliver(mentionEvent(ada, bob));
  const { rows } = await harness.pool.query<{ id: string }>('SELECT id FROM notifications WHERE recipient_id = $1', [
    bob.id,
  ]);
  bobsIds = rows.map((row) => row.id);
});
afterAll(() => harness.close());

const RUNS = 150;

function expectHandled(response: { statusCode: number; headers: Record<string, unknown>; body: string }) {
  expect(response.statusCode).toBeLessThan(500);
  if (response.statusCode >= 400) expectProblem(response, response.statusCode);
}

/** Every byte of the UTF-8 percent-encoded: lone surrogates too, which encodeURIComponent refuses. */
const percentEncoded = (value: string) =>
  [...Buffer.from(value, 'utf8')].map((byte) => `%${byte.toString(16).padStart(2, '0')}`).join('');

const oddString = fc.oneof(
  fc.string({ maxLength: 30 }),
  fc.string({ unit: 'binary', maxLength: 30 }),
  fc.constantFrom('', '0', '-1', '1.5', '1e3', ' 2', '99999999999999999999', '\u0000', "1' OR '1'='1", 'NaN', '0x10'),
  fc.integer().map(String),
);

/** An id-ish value: one of Bob's, a random UUID, a near-UUID, or anything JSON at all. */
const oddId = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(...Array.from({ length: 5 }, (_, i) => i)).map((i) => bobsIds[i]!) },
  { weight: 2, arbitrary: fc.uuid() },
  { weight: 1, arbitrary: fc.uuid().map((id) => id.toUpperCase()) },
  { weight: 1, arbitrary: fc.uuid().map((id) => id.slice(1)) },
  { weight: 1, arbitrary: fc.jsonValue() },
);

async function bobsUnread(): Promise<number> {
  const { rows } = await harness.pool.query<{ n: number }>(
    'SELECT count(*)::int AS n FROM notifications WHERE recipient_id = $1 AND NOT is_read',
    [bob.id],
  );
  return rows[0]!.n;
}

describe('GET /api/notifications', () => {
  it('answers any page and limit without a 500', async () => {
    await fc.assert(
      fc.asyncProperty(oddString, oddString, async (page, limit) => {
        const url = `/api/notifications?page=${percentEncoded(page)}&limit=${percentEncoded(limit)}`;
        expectHandled(await harness.app.inject({ method: 'GET', url, headers: bearer(eve) }));
      }),
      { numRuns: RUNS },
    );
  });
});

describe('PATCH /api/notifications/read', () => {
  it('answers any JSON body without a 500, and never changes another user’s notification', async () => {
    const body = fc.oneof(
      {
        weight: 4,
        arbitrary: fc.record(
          { notificationIds: fc.oneof(fc.array(oddId, { maxLength: 110 }), fc.jsonValue()) },
          { requiredKeys: [] },
        ),
      },
      { weight: 1, arbitrary: fc.jsonValue() },
    );
    await fc.assert(
      fc.asyncProperty(body, async (payload) => {
        const response = await harness.app.inject({
          method: 'PATCH',
          url: '/api/notifications/read',
          payload: JSON.stringify(payload),
          headers: { ...bearer(eve), 'content-type': 'application/json' },
        });
        expectHandled(response);
        if (response.statusCode === 200)
          expect(response.json()).toEqual({ message: 'Notifications marked as read', updated: 0 });
      }),
      { numRuns: RUNS },
    );
    expect(await bobsUnread()).toBe(5);
  });

  it('answers any bytes sent as JSON without a 500', async () => {
    await fc.assert(
      fc.asyncProperty(fc.string({ unit: 'binary', maxLength: 200 }), async (payload) => {
        const response = await harness.app.inject({
          method: 'PATCH',
          url: '/api/notifications/read',
          payload,
          headers: { ...bearer(eve), 'content-type': 'application/json' },
        });
        expectHandled(response);
      }),
      { numRuns: RUNS },
    );
  });

  it('changes exactly the caller’s own unread ones among any mix of ids', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.uniqueArray(fc.oneof(fc.constantFrom(...bobsIds), fc.uuid()), { minLength: 1, maxLength: 100 }),
        async (ids) => {
          await harness.pool.query('UPDATE notifications SET is_read = false WHERE recipient_id = $1', [bob.id]);
          await harness.pool.query('UPDATE notification_counts SET unread = total WHERE recipient_id = $1', [bob.id]);
          const response = await harness.app.inject({
            method: 'PATCH',
            url: '/api/notifications/read',
            payload: { notificationIds: ids },
            headers: bearer(bob),
          });
          const own = ids.filter((id) => bobsIds.includes(id)).length;
          expect(response.json().updated).toBe(own);
          expect(await bobsUnread()).toBe(5 - own);
          const count = await harness.app.inject({
            method: 'GET',
            url: '/api/notifications/unread-count',
            headers: bearer(bob),
          });
          expect(count.json()).toEqual({ count: 5 - own });
        },
      ),
      { numRuns: 50 },
    );
  });
});

describe('tokens', () => {
  it('answers any Authorization header without a 500', async () => {
    const header = fc.oneof(
      fc.string({ maxLength: 60 }).map((s) => `Bearer ${s}`),
      fc.constantFrom(
        'Bearer',
        'bearer x.y.z',
        `Bearer ${newId()}`,
        'Bearer eyJhbGciOiJub25lIn0.eyJzdWIiOiJ4In0.',
        'Token abc',
      ),
      fc.string({ maxLength: 60 }),
    );
    await fc.assert(
      fc.asyncProperty(header, async (authorization) => {
        // Header values must be visible ASCII for the HTTP layer to carry them at all.
        const value = authorization.replace(/[^\x20-\x7e]/g, '');
        const response = await harness.app.inject({
          method: 'GET',
          url: '/api/notifications/unread-count',
          headers: { authorization: value },
        });
        expectHandled(response);
        expect(response.statusCode).toBe(401);
      }),
      { numRuns: RUNS },
    );
  });
});
