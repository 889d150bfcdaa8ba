import { pactNames, verifyInternalApi } from '@recipes/testing/pact';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { type CollectionsHarness, collectionsHarnessWith, type TestUser } from '../support.js';

/** The internal look-up other services make of collections, verified against every consumer's pact of this run. */
const provider = pactNames.api('collections');
let harness: CollectionsHarness, owner: TestUser;
beforeAll(
  async () =>
    ({
      harness,
      users: [owner],
    } = await collectionsHarnessWith(['pact_owner'])),
);
afterAll(() => harness.close());

async function createdCollection(): Promise<string> {
  const response = await harness.app.inject({
    method: 'POST',
    url: '/api/collections',
    payload: { name: 'Winter light' },
    headers: owner.headers,
  });
  return response.json().collection.id;
}

describe(`${provider} provider`, () => {
  it('answers every look-up its consumers expect', async () => {
    // Comments looks collections up: its pact is written earlier in this run.
    await verifyInternalApi(harness.app, provider, {
      'a collection exists': async () => ({ id: await createdCollection() }),
      'a deleted collection exists': async () => {
        const id = await createdCollection();
        await harness.app.inject({ method: 'DELETE', url: `/api/collections/${id}`, headers: owner.headers });
        return { id };
      },
    });
  });
});
