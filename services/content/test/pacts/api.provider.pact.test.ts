import { pactNames, verifyInternalApi } from '@recipes/testing/pact';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ContentHarness, contentHarnessWith, type TestUser } from '../support.js';

/** The internal look-ups other services make of content, verified against every consumer's pact of this run. */
const provider = pactNames.api('content');
let harness: ContentHarness, author: TestUser;
beforeAll(
  async () =>
    ({
      harness,
      users: [author],
    } = await contentHarnessWith(['pact_author'])),
);
afterAll(() => harness.close());

async function created(kind: 'recipes' | 'posts', coverImageUrl: string | null): Promise<string> {
  const payload =
    kind === 'recipes'
      ? { title: 'Classic Chrome street', cameraModel: 'X100V', filmSimulation: 'Classic Chrome', coverImageUrl }
      : { title: 'A walk in Lisbon', coverImageUrl };
  const response = await harness.app.inject({
    method: 'POST',
    url: `/api/${kind}`,
    payload,
    headers: harness.bearer(author),
  });
  expect(response.statusCode).toBe(201);
  return (response.json().recipe ?? response.json().post).id;
}

const cover = 'https://cdn.example.com/street.jpg';

describe(`${provider} provider`, () => {
  it('answers every look-up its consumers expect', async () => {
    // Collections and comments both look content up: their pacts are written earlier in this run.
    await verifyInternalApi(harness.app, provider, {
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
    });
  });
});
