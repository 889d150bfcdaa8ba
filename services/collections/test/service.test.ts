import {
  type ContentSnapshot,
  createEvent,
  type EventDefinition,
  eventCatalogue,
  newId,
  recipeCreated,
  recipeDeleted,
  recipeUpdated,
  userCreated,
} from '@recipes/contracts';
import type { RunningService } from '@recipes/runtime';
import { eventually } from '@recipes/testing';
import { catalogueDisagreements, serviceEventsOf } from '@recipes/testing/catalogue';
import { type ServiceOnBroker, serviceOnBroker } from '@recipes/testing/service';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CollectionsConfig } from '../src/config.js';
import { collectionsService } from '../src/service.js';

/**
 * The collections service as it runs in production, with a real broker. The users and content services
 * are unreachable: everything it knows of them comes through events.
 */
let running: ServiceOnBroker<CollectionsConfig>;
let service: RunningService;
const owner = { id: newId(), username: 'event_owner', avatarUrl: null, revision: 0 };
let headers: Record<string, string>;

beforeAll(async () => {
  // Its own consumer on collection.*, as the comments service would listen and the users and content services publish.
  running = await serviceOnBroker(collectionsService, {
    env: { USERS_INTERNAL_URL: 'http://127.0.0.1:1', CONTENT_INTERNAL_URL: 'http://127.0.0.1:1' },
    listen: ['collection.*'],
  });
  ({ service } = running);
  headers = { authorization: `Bearer ${running.tokenFor(owner)}` };

  await publish(userCreated, owner);
  await eventually(async () =>
    (await service.pool.query('SELECT 1 FROM users WHERE id = $1', [owner.id])).rowCount ? true : undefined,
  );
});

afterAll(() => running?.close());

const publish = (definition: EventDefinition, data: unknown) =>
  running.publish(
    createEvent(definition, data as never, { producer: definition.producer, correlationId: 'events-test' }),
  );

const eventsAbout = (id: string) => running.received.filter((event) => (event.data as { id: string }).id === id);
const settle = () => new Promise((resolve) => setTimeout(resolve, 300));

describe('the collections service definition', () => {
  it('agrees with the event catalogue: what it handles, what it publishes, what its SQL writes', () => {
    const events = serviceEventsOf(collectionsService);
    expect(events.handlers.length).toBeGreaterThan(0);
    expect(catalogueDisagreements(eventCatalogue, events)).toEqual([]);
  });
});

describe('collection events through the outbox and the broker', () => {
  it('publishes collection.created and collection.deleted once each, with the request id as correlation id', async () => {
    const created = await service.app.inject({
      method: 'POST',
      url: '/api/collections',
      payload: { name: 'Evented' },
      headers: { ...headers, 'x-request-id': 'create-evented' },
    });
    expect(created.statusCode).toBe(201);
    const { id, createdAt } = created.json().collection;
    await eventually(async () => (eventsAbout(id).length > 0 ? true : undefined));

    const deleted = await service.app.inject({
      method: 'DELETE',
      url: `/api/collections/${id}`,
      headers: { ...headers, 'x-request-id': 'delete-evented' },
    });
    expect(deleted.statusCode).toBe(200);
    await eventually(async () => (eventsAbout(id).length > 1 ? true : undefined));
    await settle();

    const snapshot = { id, ownerId: owner.id, name: 'Evented', deleted: false, revision: 0, createdAt };
    expect(eventsAbout(id)).toEqual([
      expect.objectContaining({
        type: 'collection.created',
        producer: 'collections',
        correlationId: 'create-evented',
        data: snapshot,
      }),
      expect.objectContaining({
        type: 'collection.deleted',
        correlationId: 'delete-evented',
        // A deleted collection keeps no text (migrations/006): its event carries none either.
        data: { ...snapshot, name: '', deleted: true, revision: 1 },
      }),
    ]);
  });
});

describe('content events through the broker', () => {
  it('keep a saved item’s content current in the listing, and take it away when the content is deleted', async () => {
    const recipe: ContentSnapshot = {
      id: newId(),
      authorId: owner.id,
      title: 'Velvia 50',
      coverImageUrl: null,
      deleted: false,
      revision: 0,
      createdAt: new Date().toISOString(),
    };
    await publish(recipeCreated, recipe);
    await eventually(async () =>
      (await service.pool.query('SELECT 1 FROM content_items WHERE id = $1', [recipe.id])).rowCount ? true : undefined,
    );
    const saved = await service.app.inject({
      method: 'POST',
      url: '/api/saved-items',
      payload: { contentType: 'recipe', contentId: recipe.id },
      headers,
    });
    expect(saved.statusCode).toBe(201);

    const listing = async () =>
      (await service.app.inject({ method: 'GET', url: `/api/users/${owner.id}/saved-items` })).json();
    await publish(recipeUpdated, {
      ...recipe,
      title: 'Velvia 100',
      coverImageUrl: 'https://cdn.example.com/v.jpg',
      revision: 1,
    });
    const updated = await eventually(async () => {
      const body = await listing();
      return body.savedItems[0]?.content.title === 'Velvia 100' ? body : undefined;
    });
    expect(updated.savedItems[0].content).toEqual({
      title: 'Velvia 100',
      coverImageUrl: 'https://cdn.example.com/v.jpg',
      author: { id: owner.id, username: owner.username, avatarUrl: null },
    });

    await publish(recipeDeleted, { ...recipe, deleted: true, revision: 2 });
    const emptied = await eventually(async () => {
      const body = await listing();
      return body.savedItems.length === 0 ? body : undefined;
    });
    expect(emptied.pagination.total).toBe(0);
  });
});
