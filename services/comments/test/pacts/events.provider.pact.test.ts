import { MessageProviderPact } from '@pact-foundation/pact';
import { commentTargetTypeSchema, eventCatalogue, mentionKindSchema, newId } from '@recipes/contracts';
import { type EventProducer, messageProvidersByType, missingConsumerPacts, pactMessages, pactNames, pactsForProvider } from '@recipes/testing/pact';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CommentsHarness, commentsHarness } from '../support.js';

/**
 * Every consumer's pact for the events comments produces, verified against events made by the real
 * app: a comment is posted through HTTP, and the envelope is read back from the outbox, where
 * `enqueue` (comment.created) or the mention store's trigger (comment.mention.created) wrote it.
 */
const provider = pactNames.events('comments');
const pactFiles = pactsForProvider(provider);

let harness: CommentsHarness;
beforeAll(async () => {
  harness = await commentsHarness({ COMMENT_LIMIT_PER_MINUTE: '1000' });
});
afterAll(() => harness.close());

const targetOf = (type: 'recipe' | 'collection' | 'post') =>
  type === 'collection' ? harness.owners.createCollection().id : harness.owners.publish(type).id;

/** Posts `content` on a fresh target of `type` and returns the outbox envelope of `eventType` it caused. */
async function commentAndRead(type: 'recipe' | 'collection' | 'post', eventType: string, content: (mentioned: string) => string) {
  const author = harness.register(`author_${newId().slice(-8)}`);
  const mentioned = harness.register(`friend_${newId().slice(-8)}`);
  const requestId = `pact-${newId()}`;
  const response = await harness.app.inject({
    method: 'POST',
    url: `/api/${type}s/${targetOf(type)}/comments`,
    payload: { content: content(mentioned.user.username) },
    headers: { authorization: `Bearer ${author.token}`, 'x-request-id': requestId },
  });
  expect(response.statusCode).toBe(201);
  const { rows } = await harness.pool.query("SELECT payload FROM outbox WHERE type = $1 AND payload->>'correlationId' = $2", [
    eventType,
    requestId,
  ]);
  expect(rows).toHaveLength(1);
  return rows[0].payload;
}

/** The consumer's example data picks the situation: which kind of target, which mention store. */
const producers: Record<string, EventProducer> = {
  'comment.created': async (example) => {
    const type = commentTargetTypeSchema.catch('recipe').parse((example as { targetType?: unknown })?.targetType);
    return commentAndRead(type, 'comment.created', () => 'Lovely tones');
  },
  'comment.mention.created': async (example) => {
    const kind = mentionKindSchema.catch('recipe_comment').parse((example as { kind?: unknown })?.kind);
    const type = commentTargetTypeSchema.parse(kind.replace('_comment', ''));
    return commentAndRead(type, 'comment.mention.created', (name) => `Look, @${name}!`);
  },
};

describe(`${provider} provider`, () => {
  it('honours every consumer pact', async () => {
    // Content and notifications consume comment events: their pacts are written earlier in this run.
    expect(pactFiles.length).toBeGreaterThan(0);
    await new MessageProviderPact({
      provider,
      pactUrls: pactFiles,
      messageProviders: messageProvidersByType(pactFiles, producers),
      logLevel: 'warn',
    }).verify();
  }, 60_000);

  it('makes every event its consumers expect of it', () => {
    const unmade = pactMessages(pactFiles).filter(({ example }) => !(example.type !== undefined && example.type in producers));
    expect(unmade.map(({ consumer, example }) => `${consumer}: ${example.type}`)).toEqual([]);
  });

  it('has a pact from every consumer the catalogue lists for its events, once that consumer exists', () => {
    expect(missingConsumerPacts(eventCatalogue, 'comments', pactFiles)).toEqual([]);
  });
});
