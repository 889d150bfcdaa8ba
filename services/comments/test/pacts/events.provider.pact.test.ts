import {
  commentTargetTypeSchema,
  eventCatalogue,
  mentionKindSchema,
  newId,
  commentsUserErased,
} from '@recipes/contracts';
import {
  erasureConfirmation,
  type EventProducer,
  missingConsumerPacts,
  pactNames,
  pactsForProvider,
  unmadeMessages,
  verifyEventsProvider,
} from '@recipes/testing/pact';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CommentsHarness, commentsHarness, generousLimits } from '../support.js';

/**
 * Every consumer's pact for the events comments produces, verified against events made by the real
 * app: a comment is posted (and edited or deleted) through HTTP, and the envelope is read back from the
 * outbox, where `add` (comment.created, in its one statement), `enqueue` (comment.updated, .deleted),
 * `storingMentions` (comment.mention.created) or the mention stores' trigger (.deleted) wrote it.
 */
const provider = pactNames.events('comments');
const pactFiles = pactsForProvider(provider);

let harness: CommentsHarness;
beforeAll(async () => (harness = await commentsHarness(generousLimits)));
afterAll(() => harness.close());

type TargetType = 'recipe' | 'collection' | 'post';

/**
 * Posts `content` on a fresh target of `type`, then, with `then`, deletes or edits the comment (the edit
 * mentions nobody); returns the outbox envelope of `eventType` that the last request caused.
 */
async function commentAndRead(
  type: TargetType,
  eventType: string,
  content: (mentioned: string) => string,
  then?: 'delete' | 'edit',
) {
  const author = harness.register(`author_${newId().slice(-8)}`);
  const mentioned = harness.register(`friend_${newId().slice(-8)}`);
  const target = harness.target(type);
  const send = async (method: 'POST' | 'PATCH' | 'DELETE', url: string, payload?: object) => {
    const requestId = `pact-${newId()}`;
    const response = await harness.app.inject({
      method,
      url,
      payload,
      headers: { authorization: `Bearer ${author.token}`, 'x-request-id': requestId },
    });
    expect(response.statusCode).toBe(method === 'POST' ? 201 : 200);
    return { requestId, body: response.json() };
  };
  let last = await send('POST', `/api/${type}s/${target}/comments`, { content: content(mentioned.user.username) });
  const commentUrl = `/api/${type}s/${target}/comments/${last.body.comment.id}`;
  if (then === 'delete') last = await send('DELETE', commentUrl);
  if (then === 'edit') last = await send('PATCH', commentUrl, { content: 'Nobody mentioned now' });
  const events = await harness.outboxEvents(last.requestId, eventType);
  expect(events).toHaveLength(1);
  return events[0];
}

/**
 * A reply on a fresh target of `type`, by a new author to a comment of another user, mentioning a third:
 * the `comment.created` it caused.
 */
async function replyAndRead(type: TargetType) {
  const [author, replied, mentioned] = ['author', 'replied', 'friend'].map((name) =>
    harness.register(`${name}_${newId().slice(-8)}`),
  );
  const target = harness.target(type);
  const post = async (token: string, payload: object) => {
    const requestId = `pact-${newId()}`;
    const response = await harness.app.inject({
      method: 'POST',
      url: `/api/${type}s/${target}/comments`,
      payload,
      headers: { authorization: `Bearer ${token}`, 'x-request-id': requestId },
    });
    expect(response.statusCode).toBe(201);
    return { requestId, comment: response.json().comment };
  };
  const parent = await post(replied!.token, { content: 'A question' });
  const reply = await post(author!.token, { content: `Ask @${mentioned!.user.username}`, parentId: parent.comment.id });
  const events = await harness.outboxEvents(reply.requestId, 'comment.created');
  expect(events).toHaveLength(1);
  return events[0];
}

const isReply = (example: unknown) => typeof (example as { parentId?: unknown })?.parentId === 'string';

const targetTypeOf = (example: unknown) =>
  commentTargetTypeSchema.catch('recipe').parse((example as { targetType?: unknown })?.targetType);
const mentionTargetTypeOf = (example: unknown) =>
  commentTargetTypeSchema.parse(
    mentionKindSchema
      .catch('recipe_comment')
      .parse((example as { kind?: unknown })?.kind)
      .replace('_comment', ''),
  );

/** The consumer's example data picks the situation: which kind of target, which mention store. */
const producers: Record<string, EventProducer> = {
  'comment.created': (example) =>
    isReply(example)
      ? replyAndRead(targetTypeOf(example))
      : commentAndRead(targetTypeOf(example), 'comment.created', () => 'Lovely tones'),
  'comment.updated': (example) =>
    commentAndRead(targetTypeOf(example), 'comment.updated', () => 'Lovely tones', 'edit'),
  'comment.deleted': (example) =>
    commentAndRead(targetTypeOf(example), 'comment.deleted', () => 'Lovely tones', 'delete'),
  'comment.mention.created': (example) =>
    commentAndRead(mentionTargetTypeOf(example), 'comment.mention.created', (name) => `Look, @${name}!`),
  // Taken out by an edit; a deletion takes it out by the same trigger.
  'comment.mention.deleted': (example) =>
    commentAndRead(mentionTargetTypeOf(example), 'comment.mention.deleted', (name) => `Look, @${name}!`, 'edit'),
  [commentsUserErased.type]: () => erasureConfirmation(harness, 'comments'),
};

describe(`${provider} provider`, () => {
  it('honours every consumer pact', async () => {
    // Content and notifications consume comment events: their pacts are written earlier in this run.
    await verifyEventsProvider(provider, pactFiles, producers);
  }, 60_000);

  it('makes every event its consumers expect of it', () => {
    expect(unmadeMessages(pactFiles, producers)).toEqual([]);
  });

  it('has a pact from every consumer the catalogue lists for its events, once that consumer exists', () => {
    expect(missingConsumerPacts(eventCatalogue, 'comments', pactFiles)).toEqual([]);
  });
});
