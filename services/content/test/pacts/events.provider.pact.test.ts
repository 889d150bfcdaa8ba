import {
  eventCatalogue,
  eventEnvelopeSchema,
  type EventEnvelope,
  postCreated,
  postDeleted,
  recipeCreated,
  recipeDeleted,
  recipeUpdated,
  userTagged,
  contentUserErased,
} from '@recipes/contracts';
import {
  erasureConfirmation,
  type EventProducer,
  missingConsumerPacts,
  pactNames,
  pactsForProvider,
  verifyEventsProvider,
} from '@recipes/testing/pact';
import { internalServerOf } from '@recipes/http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { contentEvent } from '../../src/events/content-event.js';
import { type ContentHarness, contentHarness, outboxEvents, type TestUser } from '../support.js';

/**
 * The events content produces, verified against whatever consumer pacts name `content-events` as their
 * provider (none yet: comments, collections and notifications come later). Each message is made by the
 * real app and read back from the outbox, as the relay would publish it, for the event type the pact's
 * message carries; its example data picks the situation where the app can make either (a cover or none,
 * a tag in a post or a recipe). A consumer the catalogue lists that exists as a service must have a pact
 * for each event content produces.
 */
const provider = pactNames.events('content');
const pactUrls = pactsForProvider(provider);
const contentEvents = eventCatalogue.filter((event) => event.producer === 'content');

let harness: ContentHarness;
let ada: TestUser;
beforeAll(async () => {
  harness = await contentHarness();
  ada = await harness.knownUser('Ada_Provider', 'https://cdn.example.com/ada.png');
  await harness.knownUser('Bob_Provider');
});
afterAll(() => harness.close());

/** What a consumer's example asks for, of what the app can make either way. */
interface Situation {
  contentType?: string;
  coverImageUrl?: string | null;
}
const situation = (example: unknown): Situation => (example ?? {}) as Situation;

/** Publishes through the API: with a cover unless the example has none, tagging `taggedUsernames`. */
async function create(kind: 'recipes' | 'posts', example: unknown, taggedUsernames: string[] = []): Promise<string> {
  const withCover = situation(example).coverImageUrl !== null;
  const payload =
    kind === 'recipes'
      ? {
          title: 'Provided',
          cameraModel: 'X-T5',
          filmSimulation: 'Nostalgic Neg',
          imageUrls: withCover ? ['https://cdn.example.com/1.jpg'] : [],
        }
      : { title: 'Provided', coverImageUrl: withCover ? 'https://cdn.example.com/p.jpg' : null };
  const response = await harness.app.inject({
    method: 'POST',
    url: `/api/${kind}`,
    payload: { ...payload, taggedUsernames },
    headers: harness.bearer(ada),
  });
  expect(response.statusCode).toBe(201);
  return response.json()[kind === 'recipes' ? 'recipe' : 'post'].id;
}

async function remove(kind: 'recipes' | 'posts', id: string): Promise<void> {
  expect(
    (await harness.app.inject({ method: 'DELETE', url: `/api/${kind}/${id}`, headers: harness.bearer(ada) }))
      .statusCode,
  ).toBe(200);
}

/** The event of `type` the outbox holds about content `id`. */
async function fromOutbox(type: string, id: string): Promise<EventEnvelope> {
  const events = (await outboxEvents(harness.pool, type)).filter(
    (event) => (event.data.contentId ?? event.data.id) === id,
  );
  expect(events).toHaveLength(1);
  return events[0] as EventEnvelope;
}

/** How the real app produces each content event, by type. */
const producers: Record<string, EventProducer> = {
  [recipeCreated.type]: async (example) => fromOutbox(recipeCreated.type, await create('recipes', example)),
  // No endpoint changes a recipe yet, so nothing emits recipe.updated; when one does, it will carry the
  // recipe's snapshot with the next revision, as built here from a real recipe.
  [recipeUpdated.type]: async (example) => {
    const lookup = await internalServerOf(harness.app).inject({
      method: 'GET',
      url: `/internal/content/recipes/${await create('recipes', example)}`,
    });
    const { content } = lookup.json();
    return contentEvent(recipeUpdated, { ...content, revision: content.revision + 1 }, 'provider-test');
  },
  [recipeDeleted.type]: async (example) => {
    const id = await create('recipes', example);
    await remove('recipes', id);
    return fromOutbox(recipeDeleted.type, id);
  },
  [postCreated.type]: async (example) => fromOutbox(postCreated.type, await create('posts', example)),
  [postDeleted.type]: async (example) => {
    const id = await create('posts', example);
    await remove('posts', id);
    return fromOutbox(postDeleted.type, id);
  },
  [userTagged.type]: async (example) => {
    const kind = situation(example).contentType === 'post' ? 'posts' : 'recipes';
    return fromOutbox(userTagged.type, await create(kind, undefined, ['bob_provider']));
  },
  [contentUserErased.type]: () => erasureConfirmation(harness, 'content'),
};

describe('content-events', () => {
  it('produces what every consumer’s pact expects', async () => {
    // Comments, collections and notifications consume content events: their pacts are written earlier in this run.
    await verifyEventsProvider(provider, pactUrls, producers);
  });

  it('has a pact from every consumer in the catalogue that exists as a service', () => {
    expect(missingConsumerPacts(eventCatalogue, 'content', pactUrls)).toEqual([]);
  });

  it('makes every content event of the catalogue, valid against it', async () => {
    const inPost = eventEnvelopeSchema.parse(await producers[userTagged.type]!({ contentType: 'post' }));
    expect(inPost.data).toMatchObject({ contentType: 'post' });
    for (const [type, produce] of Object.entries(producers)) {
      const event = eventEnvelopeSchema.parse(await produce(undefined));
      const definition = contentEvents.find((candidate) => candidate.type === type)!;
      expect(event).toMatchObject({ type, version: definition.version, producer: 'content' });
      definition.data.parse(event.data);
    }
    expect(contentEvents.map((event) => event.type).filter((type) => !(type in producers))).toEqual([]);
  });
});
