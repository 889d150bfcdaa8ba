import { asynchronousBodyHandler, MessageConsumerPact } from '@pact-foundation/pact';
import {
  collectionCreated,
  collectionDeleted,
  createEvent,
  type EventDefinition,
  eventEnvelopeSchema,
  postCreated,
  postDeleted,
  recipeCreated,
  recipeDeleted,
  recipeUpdated,
  userBlocked,
  userCreated,
  userDeleted,
  NOBODY,
  userSessionEnded,
  userUnblocked,
  userUpdated,
} from '@recipes/contracts';
import type { Pool } from '@recipes/db';
import { eventMessage, pactNames, pactsDir } from '@recipes/testing/pact';
import { type ServiceHarness, serviceHarness } from '@recipes/testing/service';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { CommentsConfig } from '../../src/config.js';
import { type CommentsParts, commentsService } from '../../src/service.js';
import { targetOwners } from '../../src/targets.js';

/**
 * What comments needs of the events it consumes, each message handled by the real directory handler
 * on a real database. The description of each message is its event type.
 */
let harness: ServiceHarness<CommentsConfig, CommentsParts>;
let pool: Pool;
let directories: CommentsParts['directories'];
let handle: (body: unknown) => Promise<void>;

beforeAll(async () => {
  // No owner answers look-ups: what the directories know here comes from the messages alone.
  const unreachable = 'http://127.0.0.1:9';
  harness = await serviceHarness(commentsService, {
    env: { USERS_INTERNAL_URL: unreachable, CONTENT_INTERNAL_URL: unreachable, COLLECTIONS_INTERNAL_URL: unreachable },
  });
  ({
    pool,
    parts: { directories },
  } = harness);
  handle = (body) => harness.deliver(eventEnvelopeSchema.parse(body));
});

// Every message carries the same example event id: forget it, or the next would count as a redelivery.
beforeEach(async () => {
  await pool.query('DELETE FROM processed_events');
});

afterAll(async () => {
  await harness.close();
});

function receive(pact: MessageConsumerPact, definition: EventDefinition, example: object, check: () => Promise<void>) {
  return pact
    .expectsToReceive(definition.type)
    .withContent(eventMessage(definition, example))
    .verify(
      asynchronousBodyHandler(async (body) => {
        await handle(body);
        await check();
      }),
    );
}

const createdAt = '2026-11-22T10:00:00.000Z';
const eventsPact = (producer: string) =>
  new MessageConsumerPact({ consumer: 'comments', provider: pactNames.events(producer), dir: pactsDir });
/** Who owns a target, as comments decides whether it may be commented on. */
const ownerOf = () => targetOwners(directories.content, directories.collections);

describe('from the users service', () => {
  const pact = eventsPact('users');

  it('user.created: the user can be shown and mentioned', async () => {
    const ada = { id: '0190f5a4-0000-7000-8000-000000000001', username: 'pact_ada', avatarUrl: null, revision: 0 };
    await receive(pact, userCreated, ada, async () => {
      expect(await directories.users.findByUsername('PACT_ADA')).toEqual(ada);
    });
  });

  it('user.updated: the new avatar shows', async () => {
    const grace = {
      id: '0190f5a4-0000-7000-8000-000000000002',
      username: 'pact_grace',
      avatarUrl: 'https://cdn.example.com/grace.png',
      revision: 1,
    };
    await receive(pact, userUpdated, grace, async () => {
      expect(await directories.users.findById(grace.id)).toEqual(grace);
    });
  });

  const [blocker, blocked] = ['0190f5a4-0000-7000-8000-000000000003', '0190f5a4-0000-7000-8000-000000000004'];
  const relation = { userId: blocker, targetId: blocked, muted: false, changedAt: createdAt };

  it('user.blocked: the blocked user may not comment on the blocker’s content nor mention them', async () => {
    await receive(pact, userBlocked, { ...relation, blocked: true, revision: 1, lastUnblockedAt: null }, async () => {
      expect(await directories.relations.blocks(blocker, blocked)).toBe(true);
    });
  });

  it('user.unblocked: they may again', async () => {
    await receive(
      pact,
      userUnblocked,
      { ...relation, blocked: false, revision: 2, lastUnblockedAt: createdAt },
      async () => {
        expect(await directories.relations.blocks(blocker, blocked)).toBe(false);
      },
    );
  });

  it('user.session.ended: the session’s tokens are refused, through a restart', async () => {
    const sessionId = '0190f5a4-0000-7000-8000-000000000005';
    const token = harness.tokenFor({
      id: blocker,
      username: 'pact_blocker',
      sessionId,
      issuedAt: Math.floor(Date.now() / 1000),
    });
    const read = async (app = harness.app) =>
      (
        await app.inject({
          method: 'GET',
          url: `/api/recipes/${blocked}/comments`,
          headers: { authorization: `Bearer ${token}` },
        })
      ).statusCode;
    expect(await read()).not.toBe(401);
    // tokensExpireBy far ahead, so that the end is still worth keeping when the message is handled.
    const ended = {
      userId: blocker,
      sessionIds: [sessionId],
      notBefore: null,
      reason: 'logout',
      endedAt: createdAt,
      tokensExpireBy: '2099-11-22T10:15:01.000Z',
    };
    await receive(pact, userSessionEnded, ended, async () => {
      expect(await read()).toBe(401);
      expect(await read(await harness.anotherApp({}))).toBe(401);
    });
  });

  it('user.deleted: their comments and what knew them go, and comments confirms', async () => {
    const leaver = '0190f5a4-0000-7000-8000-000000000006';
    await harness.deliver(
      createEvent(
        userCreated,
        { id: leaver, username: 'pact_leaver', avatarUrl: null, revision: 0 },
        { producer: 'users', correlationId: 'c' },
      ),
    );
    const deleted = { userId: leaver, deletedAt: createdAt, sessionIds: [], tokensExpireBy: createdAt };
    await receive(pact, userDeleted, deleted, async () => {
      expect((await pool.query('SELECT id FROM users WHERE id = $1', [leaver])).rows).toEqual([]);
      const { rows } = await pool.query(
        "SELECT payload->'data'->>'userId' AS \"userId\" FROM outbox WHERE type = 'comments.user.erased'",
      );
      expect(rows).toContainEqual({ userId: leaver });
    });
  });
});

describe('from the content service', () => {
  const pact = eventsPact('content');
  const snapshot = (id: string, overrides: object = {}) => ({
    id,
    authorId: '0190f5a4-0000-7000-8000-0000000000a1',
    title: 'Kodachrome 64',
    coverImageUrl: null,
    deleted: false,
    revision: 0,
    createdAt,
    ...overrides,
  });

  it.each([
    {
      definition: recipeCreated,
      type: 'recipe',
      example: snapshot('0190f5a4-0000-7000-8000-000000000011'),
      commentable: true,
    },
    {
      definition: recipeUpdated,
      type: 'recipe',
      example: snapshot('0190f5a4-0000-7000-8000-000000000012', {
        coverImageUrl: 'https://cdn.example.com/c.jpg',
        revision: 1,
      }),
      commentable: true,
    },
    {
      definition: recipeDeleted,
      type: 'recipe',
      example: snapshot('0190f5a4-0000-7000-8000-000000000013', { deleted: true, revision: 1 }),
      commentable: false,
    },
    {
      definition: postCreated,
      type: 'post',
      example: snapshot('0190f5a4-0000-7000-8000-000000000014'),
      commentable: true,
    },
    {
      definition: postDeleted,
      type: 'post',
      example: snapshot('0190f5a4-0000-7000-8000-000000000015', { deleted: true, revision: 1 }),
      commentable: false,
    },
  ] as const)('$definition.type: commentable is $commentable', async ({ definition, type, example, commentable }) => {
    await receive(pact, definition, example, async () => {
      // A deleted item keeps no author, title or cover: they may delete their account after (docs/api.md §11.2).
      const kept = example.deleted ? { ...example, authorId: NOBODY, title: '', coverImageUrl: null } : example;
      expect(await directories.content.find(type, example.id)).toEqual({ ...kept, contentType: type });
      expect(await ownerOf()({ type, id: example.id })).toBe(commentable ? example.authorId : undefined);
    });
  });
});

describe('from the collections service', () => {
  const pact = eventsPact('collections');
  const snapshot = (id: string, overrides: object = {}) => ({
    id,
    ownerId: '0190f5a4-0000-7000-8000-0000000000b1',
    name: 'Winter light',
    deleted: false,
    revision: 0,
    createdAt,
    ...overrides,
  });

  it.each([
    { definition: collectionCreated, example: snapshot('0190f5a4-0000-7000-8000-000000000021'), commentable: true },
    {
      definition: collectionDeleted,
      example: snapshot('0190f5a4-0000-7000-8000-000000000022', { deleted: true, revision: 1 }),
      commentable: false,
    },
  ] as const)('$definition.type: commentable is $commentable', async ({ definition, example, commentable }) => {
    await receive(pact, definition, example, async () => {
      expect(await directories.collections.find(example.id)).toEqual(
        example.deleted ? { ...example, ownerId: NOBODY, name: '' } : example,
      );
      expect(await ownerOf()({ type: 'collection', id: example.id })).toBe(commentable ? example.ownerId : undefined);
    });
  });
});
