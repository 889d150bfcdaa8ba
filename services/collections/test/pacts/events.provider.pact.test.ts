import {
  collectionCreated,
  collectionDeleted,
  collectionsUserErased,
  createEvent,
  type EventEnvelope,
  eventCatalogue,
  newId,
  userCreated,
} from '@recipes/contracts';
import { ContentDirectory, UserDirectory, userDirectoryHandlers } from '@recipes/directory';
import { createLogger } from '@recipes/logging';
import { dispatcher } from '@recipes/messaging';
import {
  erasureConfirmation,
  type EventProducer,
  missingConsumerPacts,
  pactNames,
  pactsForProvider,
  verifyEventsProvider,
} from '@recipes/testing/pact';
import { migratedPool } from '@recipes/testing/service';
import { describe, expect, it } from 'vitest';
import { userDeletedHandler } from '@recipes/runtime';
import { collections } from '../../src/collections.js';
import { erasureSteps } from '../../src/erasure.js';
import { savedItems } from '../../src/saved-items.js';
import { collectionsService } from '../../src/service.js';

/**
 * The events collections produces, verified against every consumer's pact of this run. Each message is
 * made by the real domain code and taken from the outbox, exactly as the relay would publish it.
 */
const provider = pactNames.events('collections');
const pool = migratedPool(collectionsService);
const users = new UserDirectory({ pool, usersUrl: 'http://127.0.0.1:1' });
const domain = collections({ pool, users });
const content = new ContentDirectory({ pool, contentUrl: 'http://127.0.0.1:1' });
const erasure = userDeletedHandler({
  pool,
  service: 'collections',
  steps: erasureSteps(pool, domain, savedItems({ pool, users, content, visibility: 'public' })),
});
const deliverErasure = (event: EventEnvelope) =>
  dispatcher([erasure])(event, createLogger({ service: 'collections', level: 'silent' }));

/** An owner the directory knows, as after their user.created: only known accounts create collections. */
async function knownOwner(): Promise<string> {
  const id = newId();
  const event = createEvent(
    userCreated,
    { id, username: `owner_${id.slice(-8)}`, avatarUrl: null, revision: 0 },
    { producer: 'users', correlationId: 'pact' },
  );
  await dispatcher(userDirectoryHandlers(users))(event, createLogger({ service: 'collections', level: 'silent' }));
  return id;
}

async function outboxEvent(type: string, collectionId: string): Promise<EventEnvelope> {
  const { rows } = await pool.query("SELECT payload FROM outbox WHERE type = $1 AND payload->'data'->>'id' = $2", [
    type,
    collectionId,
  ]);
  return rows[0].payload;
}

/** The real event of each type this service produces. */
const producers: Record<string, EventProducer> = {
  [collectionCreated.type]: async () => {
    const collection = await domain.create(await knownOwner(), { name: 'Winter light', description: '' }, 'req-1');
    return outboxEvent(collectionCreated.type, collection.id);
  },
  [collectionDeleted.type]: async () => {
    const ownerId = await knownOwner();
    const collection = await domain.create(ownerId, { name: 'Winter light', description: '' }, 'req-1');
    await domain.delete(collection.id, ownerId, 'req-2');
    return outboxEvent(collectionDeleted.type, collection.id);
  },
  [collectionsUserErased.type]: () => erasureConfirmation({ deliver: deliverErasure, pool }, 'collections'),
};

describe(`${provider} provider`, () => {
  it('produces every message its consumers expect', async () => {
    // Comments consumes collection events: its pact is written earlier in this run.
    await verifyEventsProvider(provider, pactsForProvider(provider), producers);
  });

  it('has a pact from every consumer of its events that exists as a service', () => {
    expect(missingConsumerPacts(eventCatalogue, 'collections', pactsForProvider(provider))).toEqual([]);
  });
});
