import { Verifier } from '@pact-foundation/pact';
import { pactNames, pactsForProvider } from '@recipes/testing/pact';
import { internalServerOf } from '@recipes/http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CollectionsHarness, collectionsHarness, type TestUser } from '../support.js';

/** The internal look-up other services make of collections, verified against every consumer's pact of this run. */
const provider = pactNames.api('collections');
let harness: CollectionsHarness;
let owner: TestUser;

beforeAll(async () => {
  harness = await collectionsHarness();
  owner = await harness.user('pact_owner');
});
afterAll(() => harness.close());

async function createdCollection(): Promise<string> {
  const response = await harness.app.inject({ method: 'POST', url: '/api/collections', payload: { name: 'Winter light' }, headers: owner.headers });
  return response.json().collection.id;
}

describe(`${provider} provider`, () => {
  it('answers every look-up its consumers expect', async () => {
    const pactUrls = pactsForProvider(provider);
    // Comments looks collections up: its pact is written earlier in this run.
    expect(pactUrls.length).toBeGreaterThan(0);
    const providerBaseUrl = await internalServerOf(harness.app).listen({ host: '127.0.0.1', port: 0 });
    await new Verifier({
      provider,
      providerBaseUrl,
      pactUrls,
      logLevel: 'warn',
      stateHandlers: {
        'a collection exists': async () => ({ id: await createdCollection() }),
        'a deleted collection exists': async () => {
          const id = await createdCollection();
          await harness.app.inject({ method: 'DELETE', url: `/api/collections/${id}`, headers: owner.headers });
          return { id };
        },
      },
    }).verifyProvider();
  });
});
