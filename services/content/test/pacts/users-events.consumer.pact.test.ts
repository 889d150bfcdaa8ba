import { asynchronousBodyHandler, MessageConsumerPact } from '@pact-foundation/pact';
import {
  createEvent,
  type EventEnvelope,
  userBlocked,
  userCreated,
  userDeleted,
  userSessionEnded,
  userUnblocked,
  userUpdated,
} from '@recipes/contracts';
import { eventMessage, pactNames, pactsDir } from '@recipes/testing/pact';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type ContentHarness, contentHarness } from '../support.js';

/**
 * What content needs of the users service's events, each message handed to content's own handlers
 * on a real database.
 */
let harness: ContentHarness;
beforeAll(async () => {
  harness = await contentHarness();
});
afterAll(() => harness.close());
// Every example message carries the same event id: each starts from a read model that has seen nothing.
beforeEach(() => harness.pool.query('TRUNCATE processed_events, users, user_relations'));

const pact = new MessageConsumerPact({
  consumer: 'content',
  provider: pactNames.events('users'),
  dir: pactsDir,
  // Written anew by each run: the file holds exactly the messages of this test file.
  pactfileWriteMode: 'overwrite',
});

const id = '0190f5a4-1c2d-7e3f-8a9b-0c1d2e3f4a5b';

async function readModel() {
  const { rows } = await harness.pool.query(
    'SELECT id, username, avatar_url AS "avatarUrl", revision FROM users WHERE id = $1',
    [id],
  );
  return rows[0];
}

describe('content consuming users-events', () => {
  it('keeps a new user, so their recipes list and their name can be tagged', () =>
    pact
      .expectsToReceive(userCreated.type)
      .withContent(eventMessage(userCreated, { id, username: 'pact_ada', avatarUrl: null, revision: 0 }))
      .verify(
        asynchronousBodyHandler(async (body) => {
          await harness.deliver(body as unknown as EventEnvelope);
          expect(await readModel()).toEqual({ id, username: 'pact_ada', avatarUrl: null, revision: 0 });
          const listing = await harness.app.inject({ method: 'GET', url: '/api/users/PACT_ADA/recipes' });
          expect(listing.statusCode).toBe(200);
          expect(harness.usersService.requests).toEqual([]);
        }),
      ));

  it('takes a changed avatar', () =>
    pact
      .expectsToReceive(userUpdated.type)
      .withContent(
        eventMessage(userUpdated, {
          id,
          username: 'pact_ada',
          avatarUrl: 'https://cdn.example.com/new.png',
          revision: 1,
        }),
      )
      .verify(
        asynchronousBodyHandler(async (body) => {
          await harness.deliver(
            createEvent(
              userCreated,
              { id, username: 'pact_ada', avatarUrl: null, revision: 0 },
              { producer: 'users', correlationId: 'c' },
            ),
          );
          await harness.deliver(body as unknown as EventEnvelope);
          expect(await readModel()).toEqual({
            id,
            username: 'pact_ada',
            avatarUrl: 'https://cdn.example.com/new.png',
            revision: 1,
          });
        }),
      ));

  const blocker = '0190f5a4-1c2d-7e3f-8a9b-0c1d2e3f4a5c';
  const relation = { userId: blocker, targetId: id, muted: false, changedAt: '2026-11-22T10:00:00.000Z' };

  it('keeps a block, so the blocked user cannot tag the blocker', () =>
    pact
      .expectsToReceive(userBlocked.type)
      .withContent(eventMessage(userBlocked, { ...relation, blocked: true, revision: 1, lastUnblockedAt: null }))
      .verify(
        asynchronousBodyHandler(async (body) => {
          await harness.deliver(body as unknown as EventEnvelope);
          expect(await harness.parts.relations.blockersOf(id, [blocker])).toEqual(new Set([blocker]));
        }),
      ));

  it('ends it on an unblock', () =>
    pact
      .expectsToReceive(userUnblocked.type)
      .withContent(
        eventMessage(userUnblocked, {
          ...relation,
          blocked: false,
          revision: 2,
          lastUnblockedAt: '2026-11-22T10:00:01.000Z',
        }),
      )
      .verify(
        asynchronousBodyHandler(async (body) => {
          await harness.deliver(body as unknown as EventEnvelope);
          expect(await harness.parts.relations.blockersOf(id, [blocker])).toEqual(new Set());
        }),
      ));

  it('refuses the tokens of a session that ended, through a restart', () => {
    const sessionId = '0190f5a4-1c2d-7e3f-8a9b-0c1d2e3f4a61';
    const token = harness.tokenFor({ id, username: 'pact_ada', sessionId, issuedAt: Math.floor(Date.now() / 1000) });
    const read = (app = harness.app) =>
      app.inject({ method: 'GET', url: '/api/users/PACT_ADA/recipes', headers: { authorization: `Bearer ${token}` } });
    return pact
      .expectsToReceive(userSessionEnded.type)
      .withContent(
        eventMessage(userSessionEnded, {
          userId: id,
          sessionIds: [sessionId],
          notBefore: null,
          reason: 'logout',
          endedAt: '2026-11-22T10:00:00.000Z',
          // Far ahead, so that the end is still worth keeping when the message is handled.
          tokensExpireBy: '2099-11-22T10:15:01.000Z',
        }),
      )
      .verify(
        asynchronousBodyHandler(async (body) => {
          expect((await read()).statusCode).not.toBe(401);
          await harness.deliver(body as unknown as EventEnvelope);
          expect((await read()).statusCode).toBe(401);
          expect((await read(await harness.anotherApp({}))).statusCode).toBe(401);
        }),
      );
  });

  it('erases a deleted user: what it knew of them goes, and content confirms', () =>
    pact
      .expectsToReceive(userDeleted.type)
      .withContent(
        eventMessage(userDeleted, {
          userId: id,
          deletedAt: '2026-11-22T10:00:00.000Z',
          sessionIds: [],
          tokensExpireBy: '2026-11-22T10:15:01.000Z',
        }),
      )
      .verify(
        asynchronousBodyHandler(async (body) => {
          await harness.deliver(
            createEvent(
              userCreated,
              { id, username: 'pact_ada', avatarUrl: null, revision: 0 },
              { producer: 'users', correlationId: 'c' },
            ),
          );
          await harness.deliver(body as unknown as EventEnvelope);
          expect(await readModel()).toBeUndefined();
          const { rows } = await harness.pool.query(
            "SELECT payload->'data'->>'userId' AS \"userId\" FROM outbox WHERE type = 'content.user.erased'",
          );
          expect(rows).toEqual([{ userId: id }]);
        }),
      ));
});
