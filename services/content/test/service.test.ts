import {
  commentCreated,
  createEvent,
  eventCatalogue,
  type EventEnvelope,
  newId,
  userCreated,
} from '@recipes/contracts';
import type { RunningService } from '@recipes/runtime';
import { eventually } from '@recipes/testing';
import { catalogueDisagreements, serviceEventsOf } from '@recipes/testing/catalogue';
import { type ServiceOnBroker, serviceOnBroker } from '@recipes/testing/service';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ContentConfig } from '../src/config.js';
import { contentService } from '../src/service.js';

describe('the content service definition', () => {
  it('agrees with the event catalogue: what it handles, what it publishes, what its SQL writes', () => {
    const events = serviceEventsOf(contentService);
    expect(events.handlers.length).toBeGreaterThan(0);
    expect(catalogueDisagreements(eventCatalogue, events)).toEqual([]);
  });
});

/** The content service as it runs in production, with a consumer of its own on the same exchange. */
let running: ServiceOnBroker<ContentConfig>;
let service: RunningService;
let received: EventEnvelope[];

beforeAll(async () => {
  // Nobody listens at USERS_INTERNAL_URL: every user must come from the events.
  running = await serviceOnBroker(contentService, {
    env: { USERS_INTERNAL_URL: 'http://127.0.0.1:9' },
    listen: ['recipe.*', 'content.#'],
  });
  ({ service, received } = running);
});

afterAll(() => running?.close());

const publish = (event: EventEnvelope) => running.publish(event);
const sign = (user: { id: string; username: string }) => running.tokenFor(user);

describe('the content service on the broker', () => {
  it('learns users from user.created, publishes what a recipe causes, and counts comments from comment.created', async () => {
    const ada = { id: newId(), username: 'ada_service', avatarUrl: null, revision: 0 };
    const bob = { id: newId(), username: 'bob_service', avatarUrl: null, revision: 0 };
    for (const user of [ada, bob])
      await publish(createEvent(userCreated, user, { producer: 'users', correlationId: 'register' }));

    // The author is known only once their event has been consumed: the users service is unreachable here.
    const created = await eventually(async () => {
      const response = await service.app.inject({
        method: 'POST',
        url: '/api/recipes',
        payload: { title: 'Eterna', cameraModel: 'X-H2', filmSimulation: 'Eterna', taggedUsernames: ['Bob_Service'] },
        headers: { authorization: `Bearer ${sign(ada)}`, 'x-request-id': 'service-publish' },
      });
      return response.statusCode === 201 ? response.json().recipe : undefined;
    }, 10_000);

    const caused = await eventually(async () => {
      const mine = received.filter((event) => event.correlationId === 'service-publish');
      return mine.length === 2 ? mine : undefined;
    });
    expect(caused.map((event) => event.type).sort()).toEqual(['content.user.tagged', 'recipe.created']);
    expect(caused.find((event) => event.type === 'content.user.tagged')!.data).toMatchObject({
      actorId: ada.id,
      taggedUserId: bob.id,
    });

    const comment = {
      id: newId(),
      targetType: 'recipe' as const,
      targetId: created.id,
      authorId: bob.id,
      createdAt: new Date().toISOString(),
    };
    const event = createEvent(commentCreated, comment, { producer: 'comments', correlationId: 'comment' });
    await publish(event);
    await publish(event); // redelivered
    const count = async () =>
      (await service.app.inject({ method: 'GET', url: `/api/recipes/${created.id}` })).json().recipe.commentCount;
    await eventually(async () => ((await count()) === 1 ? true : undefined));
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(await count()).toBe(1);
  });
});
