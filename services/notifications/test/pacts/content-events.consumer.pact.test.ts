import { MatchersV3 } from '@pact-foundation/pact';
import { userTagged } from '@recipes/contracts';
import { eventMessage } from '@recipes/testing/pact';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type NotificationsHarness, notificationsHarness } from '../support.js';
import { consumedBy, delivery, eventsPact, isoMillis } from './support.js';

/** What notifications needs of `content.user.tagged`: one interaction per kind of content. */
const pact = eventsPact('content');
const { equal, uuid } = MatchersV3;
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
    await delivery(pact, `a content.user.tagged for a user tagged in a ${contentType}`, eventId, message).verify(consumedBy(harness));

    const { rows } = await harness.pool.query(
      'SELECT actor_id, content_type, content_id, comment_id FROM notifications WHERE recipient_id = $1 AND type = $2',
      [TAGGED, type],
    );
    expect(rows).toEqual([{ actor_id: ACTOR, content_type: contentType, content_id: CONTENT, comment_id: null }]);
  });
});
