import {
  commentMentionCreated,
  createEvent,
  eventCatalogue,
  type EventEnvelope,
  newId,
  recipeCreated,
  recipeDeleted,
  userCreated,
} from '@recipes/contracts';
import type { RunningService } from '@recipes/runtime';
import { eventually } from '@recipes/testing';
import { catalogueDisagreements, serviceEventsOf } from '@recipes/testing/catalogue';
import { type ReceivedMessage, type ServiceOnBroker, serviceOnBroker } from '@recipes/testing/service';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CommentsConfig } from '../src/config.js';
import { commentsService } from '../src/service.js';

/**
 * The comments service as it runs in production, on a real broker: it learns of users and recipes from
 * their owners' events (no owner answers look-ups here), and its mention events reach a real queue.
 */
let running: ServiceOnBroker<CommentsConfig>;
let service: RunningService;
/** What reached a consumer of the test's own, straight on the broker, as the other services would be. */
let received: ReceivedMessage[];

beforeAll(async () => {
  // Nobody listens there: everything this service knows must come through its queue.
  const nobody = 'http://127.0.0.1:9';
  running = await serviceOnBroker(commentsService, {
    env: { USERS_INTERNAL_URL: nobody, CONTENT_INTERNAL_URL: nobody, COLLECTIONS_INTERNAL_URL: nobody },
    listen: ['comment.mention.created'],
  });
  ({ service, messages: received } = running);
});

afterAll(() => running?.close());

/** An owner's event, published as the owner's relay would. */
const publish = (event: EventEnvelope) => running.publish(event);
const sign = (user: { id: string; username: string }) => running.tokenFor(user);

async function registered(username: string) {
  const user = { id: newId(), username, avatarUrl: null, revision: 0 };
  await publish(createEvent(userCreated, user, { producer: 'users', correlationId: `register-${username}` }));
  return { user, token: sign({ id: user.id, username }) };
}

const recipe = () => ({
  id: newId(),
  authorId: newId(),
  title: 'Portra 400',
  coverImageUrl: null,
  deleted: false,
  revision: 0,
  createdAt: new Date().toISOString(),
});

/** Waits until this service's user directory has heard of each of `users`. */
async function untilKnown(...users: { user: { id: string } }[]): Promise<void> {
  const ids = users.map(({ user }) => user.id);
  await eventually(async () => {
    const { rows } = await service.pool.query('SELECT count(*)::int AS known FROM users WHERE id = ANY($1::uuid[])', [
      ids,
    ]);
    return rows[0].known === ids.length ? true : undefined;
  });
}

const commentsUrl = (id: string) => `/api/recipes/${id}/comments`;
const mentionsOf = (correlationId: string) =>
  received.filter((message) => message.body.correlationId === correlationId);

describe('the comments service definition', () => {
  it('agrees with the event catalogue: what it handles, what it publishes, what its SQL writes', () => {
    expect(catalogueDisagreements(eventCatalogue, serviceEventsOf(commentsService))).toEqual([]);
  });
});

describe('comments on the broker', () => {
  it('publishes each mention of a comment exactly once, as the contract describes it', async () => {
    const author = await registered('broker_author');
    const ada = await registered('broker_ada');
    const grace = await registered('broker_grace');
    const published = recipe();
    await publish(createEvent(recipeCreated, published, { producer: 'content', correlationId: 'publish' }));

    // The read models fill from the queue: until then this service knows neither recipe nor users.
    await eventually(async () =>
      (await service.app.inject({ method: 'GET', url: commentsUrl(published.id) })).statusCode === 200
        ? true
        : undefined,
    );
    await untilKnown(author, ada, grace);
    const response = await service.app.inject({
      method: 'POST',
      url: commentsUrl(published.id),
      payload: { content: '@broker_ada and @Broker_Grace: this one!' },
      headers: { authorization: `Bearer ${author.token}`, 'x-request-id': 'broker-mentions' },
    });
    expect(response.statusCode).toBe(201);
    const commentId = response.json().comment.id;

    const messages = await eventually(async () =>
      mentionsOf('broker-mentions').length >= 2 ? mentionsOf('broker-mentions') : undefined,
    );
    await eventually(async () => ((await service.relay.backlog()).count === 0 ? true : undefined));
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(mentionsOf('broker-mentions')).toHaveLength(2);

    const { rows } = await service.pool.query(
      'SELECT id, mentioned_user_id FROM recipe_comment_mentions WHERE comment_id = $1',
      [commentId],
    );
    expect(rows).toHaveLength(2);
    for (const message of messages) {
      expect(message.messageId).toBe(message.body.id);
      expect(message.body).toMatchObject({ type: 'comment.mention.created', version: 1, producer: 'comments' });
      const data = commentMentionCreated.data.parse(message.body.data);
      expect(data).toMatchObject({
        kind: 'recipe_comment',
        actorId: author.user.id,
        commentId,
        targetType: 'recipe',
        targetId: published.id,
      });
      expect(rows).toContainEqual({ id: data.mentionId, mentioned_user_id: data.mentionedUserId });
    }
    expect(messages.map((m) => commentMentionCreated.data.parse(m.body.data).mentionedUserId).sort()).toEqual(
      [ada.user.id, grace.user.id].sort(),
    );
  });

  it('answers 404 once recipe.deleted has arrived', async () => {
    const author = await registered('broker_late');
    const doomed = recipe();
    await publish(createEvent(recipeCreated, doomed, { producer: 'content', correlationId: 'publish' }));
    await eventually(async () =>
      (await service.app.inject({ method: 'GET', url: commentsUrl(doomed.id) })).statusCode === 200 ? true : undefined,
    );

    await untilKnown(author);

    await publish(
      createEvent(
        recipeDeleted,
        { ...doomed, deleted: true, revision: 1 },
        { producer: 'content', correlationId: 'delete' },
      ),
    );
    await eventually(async () =>
      (await service.app.inject({ method: 'GET', url: commentsUrl(doomed.id) })).statusCode === 404 ? true : undefined,
    );
    const refused = await service.app.inject({
      method: 'POST',
      url: commentsUrl(doomed.id),
      payload: { content: 'too late' },
      headers: { authorization: `Bearer ${author.token}` },
    });
    expect(refused.statusCode).toBe(404);
  });
});
