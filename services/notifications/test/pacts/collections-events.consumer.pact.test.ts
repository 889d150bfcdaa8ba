import { MatchersV3 } from '@pact-foundation/pact';
import { collectionDeleted, commentMentionCreated, createEvent } from '@recipes/contracts';
import { eventMessage } from '@recipes/testing/pact';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type NotificationsHarness, notificationsHarness } from '../support.js';
import { consumedBy, delivery, eventsPact, isoMillis } from './support.js';

/** What notifications needs of `collection.deleted`: the collection's id, to retract the mentions in its comments. */
const pact = eventsPact('collections');
const { equal, like, uuid } = MatchersV3;
let harness: NotificationsHarness;
beforeAll(async () => {
  harness = await notificationsHarness();
});
afterAll(() => harness.close());

const OWNER = '0190f5a4-1c2d-7e3f-8a9b-0c1d2e3f4a81';
const MENTIONED = '0190f5a4-1c2d-7e3f-8a9b-0c1d2e3f4a82';
const COLLECTION = '0190f5a4-1c2d-7e3f-8a9b-0c1d2e3f4a83';
const COMMENT = '0190f5a4-1c2d-7e3f-8a9b-0c1d2e3f4a84';

describe('collection.deleted', () => {
  it('retracts the mentions in the deleted collection’s comments', async () => {
    const mention = {
      kind: 'collection_comment' as const,
      mentionId: '0190f5a4-1c2d-7e3f-8a9b-0c1d2e3f4a85',
      mentionedUserId: MENTIONED,
      actorId: OWNER,
      commentId: COMMENT,
      targetType: 'collection' as const,
      targetId: COLLECTION,
      createdAt: '2026-11-22T10:00:00.000Z',
    };
    await harness.deliver(
      createEvent(commentMentionCreated, mention, { producer: 'comments', correlationId: 'mentioned' }),
    );
    const message = eventMessage(collectionDeleted, {
      id: uuid(COLLECTION),
      ownerId: uuid(OWNER),
      name: like('Winter light'),
      deleted: equal(true),
      revision: like(1),
      createdAt: isoMillis(mention.createdAt),
    });
    await delivery(
      pact,
      'a collection.deleted for a collection a user was mentioned in a comment of',
      '0190f5a4-1c2d-7e3f-8a9b-0c1d2e3f4a86',
      message,
    ).verify(consumedBy(harness));

    const { rows } = await harness.pool.query(
      'SELECT retracted_at IS NOT NULL AS retracted FROM notifications WHERE recipient_id = $1 AND comment_id = $2',
      [MENTIONED, COMMENT],
    );
    expect(rows).toEqual([{ retracted: true }]);
  });
});
