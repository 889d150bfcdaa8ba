import { Verifier } from '@pact-foundation/pact';
import { pactNames, pactsForProvider } from '@recipes/testing/pact';
import { internalServerOf } from '@recipes/http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ContentHarness, contentHarness, type TestUser } from '../support.js';

/** The internal look-ups other services make of content, verified against every consumer's pact of this run. */
const provider = pactNames.api('content');
let harness: ContentHarness;
let author: TestUser;

beforeAll(async () => {
  harness = await contentHarness();
  author = await harness.knownUser('pact_author');
});
afterAll(() => harness.close());

async function created(kind: 'recipes' | 'posts', coverImageUrl: string | null): Promise<string> {
  const payload =
    kind === 'recipes'
      ? { title: 'Classic Chrome street', cameraModel: 'X100V', filmSimulation: 'Classic Chrome', coverImageUrl }
      : { title: 'A walk in Lisbon', coverImageUrl };
  const response = await harness.app.inject({ method: 'POST', url: `/api/${kind}`, payload, headers: harness.bearer(author) });
  expect(response.statusCode).toBe(201);
  return (response.json().recipe ?? response.json().post).id;
}

const cover = 'https://cdn.example.com/street.jpg';

describe(`${provider} provider`, () => {
  it('answers every look-up its consumers expect', async () => {
    const pactUrls = pactsForProvider(provider);
    // Collections and comments both look content up: their pacts are written earlier in this run.
    expect(pactUrls.length).toBeGreaterThan(0);
    const providerBaseUrl = await internalServerOf(harness.app).listen({ host: '127.0.0.1', port: 0 });
    await new Verifier({
      provider,
      providerBaseUrl,
      pactUrls,
      logLevel: 'warn',
      stateHandlers: {
        'a recipe exists': async () => ({ id: await created('recipes', null) }),
        'a recipe with a cover image exists': async () => ({ id: await created('recipes', cover) }),
        'a post exists': async () => ({ id: await created('posts', null) }),
        'a post with a cover image exists': async () => ({ id: await created('posts', cover) }),
        'a deleted recipe exists': async () => {
          const id = await created('recipes', null);
          await harness.app.inject({ method: 'DELETE', url: `/api/recipes/${id}`, headers: harness.bearer(author) });
          return { id };
        },
        'no recipe exists': async () => undefined,
      },
    }).verifyProvider();
  });
});
