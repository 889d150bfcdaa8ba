import { asynchronousBodyHandler, MessageConsumerPact } from '@pact-foundation/pact';
import { commentCreated, commentDeleted, createEvent, type EventEnvelope } from '@recipes/contracts';
import { eventMessage, pactNames, pactsDir } from '@recipes/testing/pact';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { insertRecipe } from '../../src/repository/recipes.js';
import { type ContentHarness, contentHarness } from '../support.js';

/**
 * What content needs of the comments service's events: enough to count a recipe's comments. Each
 * message goes to content's own handlers on a real database. No provider verifies this yet: the
 * comments service will, when it exists (see the catalogue check in events.provider.pact.test.ts).
 */
let harness: ContentHarness;
const recipeId = '0190f5a4-1c2d-7e3f-8a9b-0c1d2e3f4a5c';
const comment = {
  id: '0190f5a4-1c2d-7e3f-8a9b-0c1d2e3f4a5d',
  targetType: 'recipe',
  targetId: recipeId,
  authorId: '0190f5a4-1c2d-7e3f-8a9b-0c1d2e3f4a5e',
  createdAt: '2026-11-22T10:00:00.000Z',
} as const;

beforeAll(async () => {
  harness = await contentHarness();
  const author = await harness.knownUser('pact_author');
  await insertRecipe(harness.pool, {
    id: recipeId,
    authorId: author.id,
    title: 'Commented',
    description: '',
    cameraModel: 'X-T5',
    filmSimulation: 'Provia',
    coverImageUrl: null,
    imageUrls: [],
  });
});
afterAll(() => harness.close());
// Every example message carries the same event id: each starts from a recipe nobody has commented on.
beforeEach(async () => {
  await harness.pool.query('TRUNCATE processed_events, recipe_comments');
  await harness.pool.query('UPDATE recipes SET comment_count = 0');
});

const pact = new MessageConsumerPact({
  consumer: 'content',
  provider: pactNames.events('comments'),
  dir: pactsDir,
  pactfileWriteMode: 'overwrite',
});

async function commentCount(): Promise<number> {
  return (await harness.app.inject({ method: 'GET', url: `/api/recipes/${recipeId}` })).json().recipe.commentCount;
}

describe('content consuming comments-events', () => {
  it('counts a new comment on a recipe', () =>
    pact
      .expectsToReceive(commentCreated.type)
      .withContent(eventMessage(commentCreated, comment))
      .verify(
        asynchronousBodyHandler(async (body) => {
          await harness.deliver(body as unknown as EventEnvelope);
          expect(await commentCount()).toBe(1);
        }),
      ));

  it('takes a deleted comment off its recipe’s count', async () => {
    await harness.deliver(createEvent(commentCreated, comment, { producer: 'comments', correlationId: 'counted' }));
    expect(await commentCount()).toBe(1);
    await pact
      .expectsToReceive(commentDeleted.type)
      .withContent(eventMessage(commentDeleted, { ...comment, deletedAt: '2026-11-22T10:05:00.000Z' }))
      .verify(
        asynchronousBodyHandler(async (body) => {
          await harness.deliver(body as unknown as EventEnvelope);
          expect(await commentCount()).toBe(0);
        }),
      );
  });
});
