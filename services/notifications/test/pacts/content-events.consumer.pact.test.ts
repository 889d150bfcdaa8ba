import { MatchersV3 } from '@pact-foundation/pact';
import { createEvent, postDeleted, recipeDeleted, userTagged } from '@recipes/contracts';
import { eventMessage } from '@recipes/testing/pact';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type NotificationsHarness, notificationsHarness } from '../support.js';
import { consumedBy, delivery, eventsPact, isoMillis } from './support.js';

/**
 * What notifications needs of `content.user.tagged` and of `recipe.deleted` and `post.deleted`: one
 * interaction per kind of content.
 */
const pact = eventsPact('content');
const { equal, like, uuid } = MatchersV3;
let harness: NotificationsHarness;
beforeAll(async () => {
  harness = await notificationsHarness();
});
afterAll(() => harness.close());

const ACTOR = '0190f5a4-1c2d-7e3f-8a9b-0c1d2e3f4a61';
const TAGGED = '0190f5a4-1c2d-7e3f-8a9b-0c1d2e3f4a62';
const CONTENT = '0190f5a4-1c2d-7e3f-8a9b-0c1d2e3f4a63';

describe.each([
  ['recipe', 'tag_recipe', '0190f5a4-1c2d-7e3f-8a9b-0c1d2e3f4a64'],
  ['post', 'tag_post', '0190f5a4-1c2d-7e3f-8a9b-0c1d2e3f4a65'],
] as const)('content.user.tagged in a %s', (contentType, type, eventId) => {
  it(`becomes one ${type} for the tagged user`, async () => {
    const message = eventMessage(userTagged, {
      contentType: equal(contentType),
      contentId: uuid(CONTENT),
      actorId: uuid(ACTOR),
      taggedUserId: uuid(TAGGED),
      createdAt: isoMillis('2026-11-22T10:00:00.000Z'),
    });
    await delivery(pact, `a content.user.tagged for a user tagged in a ${contentType}`, eventId, message).verify(
      consumedBy(harness),
    );

    const { rows } = await harness.pool.query(
      'SELECT actor_id, content_type, content_id, comment_id FROM notifications WHERE recipient_id = $1 AND type = $2',
      [TAGGED, type],
    );
    expect(rows).toEqual([{ actor_id: ACTOR, content_type: contentType, content_id: CONTENT, comment_id: null }]);
  });
});

describe.each([
  {
    definition: recipeDeleted,
    contentType: 'recipe',
    DELETED: '0190f5a4-1c2d-7e3f-8a9b-0c1d2e3f4a66',
    eventId: '0190f5a4-1c2d-7e3f-8a9b-0c1d2e3f4a67',
  },
  {
    definition: postDeleted,
    contentType: 'post',
    DELETED: '0190f5a4-1c2d-7e3f-8a9b-0c1d2e3f4a68',
    eventId: '0190f5a4-1c2d-7e3f-8a9b-0c1d2e3f4a69',
  },
] as const)('$definition.type', ({ definition, contentType, DELETED, eventId }) => {
  it(`retracts the tag in the deleted ${contentType}`, async () => {
    const tag = {
      contentType,
      contentId: DELETED,
      actorId: ACTOR,
      taggedUserId: TAGGED,
      createdAt: '2026-11-22T10:00:00.000Z',
    };
    await harness.deliver(createEvent(userTagged, tag, { producer: 'content', correlationId: 'tagged' }));
    const message = eventMessage(definition, {
      id: uuid(DELETED),
      authorId: uuid(ACTOR),
      title: like('Kodachrome 64'),
      coverImageUrl: null,
      deleted: equal(true),
      revision: like(1),
      createdAt: isoMillis(tag.createdAt),
    });
    await delivery(pact, `a ${definition.type} for a ${contentType} a user was tagged in`, eventId, message).verify(
      consumedBy(harness),
    );

    const { rows } = await harness.pool.query(
      'SELECT retracted_at IS NOT NULL AS retracted FROM notifications WHERE recipient_id = $1 AND content_id = $2',
      [TAGGED, DELETED],
    );
    expect(rows).toEqual([{ retracted: true }]);
  });
});
