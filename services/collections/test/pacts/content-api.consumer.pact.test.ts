import { MatchersV3, PactV4 } from '@pact-foundation/pact';
import type { ContentSnapshot } from '@recipes/contracts';
import { ContentDirectory } from '@recipes/directory';
import { pactNames, pactsDir } from '@recipes/testing/pact';
import { migratedPool } from '@recipes/testing/service';
import { describe, expect, it } from 'vitest';
import { collectionsService } from '../../src/service.js';

/**
 * The look-up collections makes of the content service for content saved a moment after it was created,
 * through the content directory's real fallback, against the Pact mock server.
 */
const { fromProviderState, like } = MatchersV3;
const pact = new PactV4({
  consumer: 'collections',
  provider: pactNames.api('content'),
  dir: pactsDir,
  logLevel: 'warn',
});
const pool = migratedPool(collectionsService);

const exampleId = '0190f5a4-0000-7000-8000-00000000d001';
const snapshot: ContentSnapshot = {
  id: exampleId,
  authorId: '0190f5a4-0000-7000-8000-00000000a001',
  title: 'Classic Chrome street',
  coverImageUrl: 'https://cdn.example.com/street.jpg',
  deleted: false,
  revision: 0,
  createdAt: '2026-11-22T10:00:00.000Z',
};
// The provider's state handler creates the content and returns its `id`, which the path then carries.
const pathOf = (kind: string) =>
  fromProviderState(`/internal/content/${kind}/\${id}`, `/internal/content/${kind}/${exampleId}`);

describe('content-api look-ups made by collections', () => {
  it.each([
    ['recipe', 'recipes'],
    ['post', 'posts'],
  ] as const)('finds a %s created a moment ago', async (contentType, kind) => {
    await pact
      .addInteraction()
      .given(`a ${contentType} with a cover image exists`)
      .uponReceiving(`a look-up of a ${contentType}`)
      .withRequest('GET', pathOf(kind))
      .willRespondWith(200, (response) => response.jsonBody({ content: like(snapshot) }))
      .executeTest(async (server) => {
        const directory = new ContentDirectory({ pool, contentUrl: server.url });
        expect(await directory.find(contentType, exampleId)).toEqual({ ...snapshot, contentType });
      });
  });

  it('hears 404 for content that does not exist', async () => {
    const missing = '0190f5a4-0000-7000-8000-00000000d0ff';
    await pact
      .addInteraction()
      .given('no recipe exists')
      .uponReceiving('a look-up of a recipe that does not exist')
      .withRequest('GET', `/internal/content/recipes/${missing}`)
      .willRespondWith(404)
      .executeTest(async (server) => {
        const directory = new ContentDirectory({ pool, contentUrl: server.url });
        expect(await directory.find('recipe', missing)).toBeUndefined();
      });
  });
});
