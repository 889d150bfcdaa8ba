import { MatchersV3 } from '@pact-foundation/pact';
import {
  commentCreated,
  commentDeleted,
  commentMentionCreated,
  commentMentionDeleted,
  createEvent,
} from '@recipes/contracts';
import { eventMessage } from '@recipes/testing/pact';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type NotificationsHarness, notificationsHarness } from '../support.js';
import { consumedBy, delivery, eventsPact, isoMillis } from './support.js';

/**
 * What notifications needs of `comment.mention.created` (one interaction per mention store), of
 * `comment.mention.deleted`, and of `comment.created` and `comment.deleted` (a reply and a comment on a
 * user's content, docs/api.md §11.4).
 */
const pact = eventsPact('comments');
const { eachLike, equal, uuid } = MatchersV3;
let harness: NotificationsHarness;
beforeAll(async () => {
  harness = await notificationsHarness();
});
afterAll(() => harness.close());

const ACTOR = '0190f5a4-1c2d-7e3f-8a9b-0c1d2e3f4a51';
const MENTIONED = '0190f5a4-1c2d-7e3f-8a9b-0c1d2e3f4a52';
const TARGET = '0190f5a4-1c2d-7e3f-8a9b-0c1d2e3f4a55';

// A comment of each kind: a user is notified once per comment.
describe.each([
  [
    'recipe_comment',
    'recipe',
    'mention_recipe_comment',
    '0190f5a4-1c2d-7e3f-8a9b-0c1d2e3f4a56',
    '0190f5a4-1c2d-7e3f-8a9b-0c1d2e3f4a54',
  ],
  [
    'collection_comment',
    'collection',
    'mention_collection_comment',
    '0190f5a4-1c2d-7e3f-8a9b-0c1d2e3f4a57',
    '0190f5a4-1c2d-7e3f-8a9b-0c1d2e3f4a59',
  ],
  [
    'post_comment',
    'post',
    'mention_post_comment',
    '0190f5a4-1c2d-7e3f-8a9b-0c1d2e3f4a58',
    '0190f5a4-1c2d-7e3f-8a9b-0c1d2e3f4a5a',
  ],
] as const)('comment.mention.created for a %s', (kind, targetType, type, eventId, COMMENT) => {
  it(`becomes one ${type} for the mentioned user`, async () => {
    const message = eventMessage(commentMentionCreated, {
      kind: equal(kind),
      mentionId: uuid('0190f5a4-1c2d-7e3f-8a9b-0c1d2e3f4a53'),
      mentionedUserId: uuid(MENTIONED),
      actorId: uuid(ACTOR),
      commentId: uuid(COMMENT),
      targetType: equal(targetType),
      targetId: uuid(TARGET),
      createdAt: isoMillis('2026-11-22T10:00:00.000Z'),
    });
    await delivery(
      pact,
      `a comment.mention.created for a user mentioned in a ${kind.replace('_', ' ')}`,
      eventId,
      message,
    ).verify(consumedBy(harness));

    const { rows } = await harness.pool.query(
      'SELECT actor_id, content_type, content_id, comment_id FROM notifications WHERE recipient_id = $1 AND type = $2',
      [MENTIONED, type],
    );
    expect(rows).toEqual([{ actor_id: ACTOR, content_type: targetType, content_id: TARGET, comment_id: COMMENT }]);
  });
});

describe('comment.mention.deleted', () => {
  const COMMENT = '0190f5a4-1c2d-7e3f-8a9b-0c1d2e3f4a5b';
  const data = {
    kind: 'recipe_comment' as const,
    mentionId: '0190f5a4-1c2d-7e3f-8a9b-0c1d2e3f4a5c',
    mentionedUserId: MENTIONED,
    actorId: ACTOR,
    commentId: COMMENT,
    targetType: 'recipe' as const,
    targetId: TARGET,
    createdAt: '2026-11-22T10:00:00.000Z',
  };

  it('retracts the notification of a mention taken out of its comment', async () => {
    await harness.deliver(
      createEvent(commentMentionCreated, data, { producer: 'comments', correlationId: 'mentioned' }),
    );
    const message = eventMessage(commentMentionDeleted, {
      kind: equal(data.kind),
      mentionId: uuid(data.mentionId),
      mentionedUserId: uuid(MENTIONED),
      actorId: uuid(ACTOR),
      commentId: uuid(COMMENT),
      targetType: equal(data.targetType),
      targetId: uuid(TARGET),
      createdAt: isoMillis(data.createdAt),
      deletedAt: isoMillis('2026-11-22T10:05:00.000Z'),
    });
    await delivery(
      pact,
      'a comment.mention.deleted for a user no longer mentioned in a recipe comment',
      '0190f5a4-1c2d-7e3f-8a9b-0c1d2e3f4a5d',
      message,
    ).verify(consumedBy(harness));

    const { rows } = await harness.pool.query(
      'SELECT retracted_at IS NOT NULL AS retracted FROM notifications WHERE recipient_id = $1 AND comment_id = $2',
      [MENTIONED, COMMENT],
    );
    expect(rows).toEqual([{ retracted: true }]);
  });
});

describe('comment.created and comment.deleted', () => {
  const OWNER = '0190f5a4-1c2d-7e3f-8a9b-0c1d2e3f4a61';
  const REPLIED = '0190f5a4-1c2d-7e3f-8a9b-0c1d2e3f4a62';
  const REPLY = '0190f5a4-1c2d-7e3f-8a9b-0c1d2e3f4a63';
  const reply = {
    id: REPLY,
    targetType: 'post' as const,
    targetId: TARGET,
    authorId: ACTOR,
    createdAt: '2026-11-22T10:00:00.000Z',
    parentId: '0190f5a4-1c2d-7e3f-8a9b-0c1d2e3f4a64',
    targetOwnerId: OWNER,
    repliedToAuthorId: REPLIED,
    mentionedUserIds: [MENTIONED],
  };
  const notified = async () =>
    (
      await harness.pool.query(
        'SELECT recipient_id, type, retracted_at IS NOT NULL AS retracted FROM notifications WHERE comment_id = $1 ORDER BY type',
        [REPLY],
      )
    ).rows;

  it('tells the author replied to and the owner of the post, leaving the mentioned user to their mention', async () => {
    const message = eventMessage(commentCreated, {
      id: uuid(reply.id),
      targetType: equal(reply.targetType),
      targetId: uuid(TARGET),
      authorId: uuid(ACTOR),
      createdAt: isoMillis(reply.createdAt),
      parentId: uuid(reply.parentId),
      targetOwnerId: uuid(OWNER),
      repliedToAuthorId: uuid(REPLIED),
      mentionedUserIds: eachLike(uuid(MENTIONED)),
    });
    await delivery(
      pact,
      'a comment.created for a reply that mentions a user, on a post',
      '0190f5a4-1c2d-7e3f-8a9b-0c1d2e3f4a65',
      message,
    ).verify(consumedBy(harness));
    expect(await notified()).toEqual([
      { recipient_id: OWNER, type: 'comment_post', retracted: false },
      { recipient_id: REPLIED, type: 'reply_comment', retracted: false },
    ]);
  });

  it('retracts what a deleted comment caused', async () => {
    await harness.deliver(createEvent(commentCreated, reply, { producer: 'comments', correlationId: 'replied' }));
    const message = eventMessage(commentDeleted, {
      id: uuid(reply.id),
      targetType: equal(reply.targetType),
      targetId: uuid(TARGET),
      authorId: uuid(ACTOR),
      createdAt: isoMillis(reply.createdAt),
      deletedAt: isoMillis('2026-11-22T10:05:00.000Z'),
    });
    await delivery(
      pact,
      'a comment.deleted for a deleted reply on a post',
      '0190f5a4-1c2d-7e3f-8a9b-0c1d2e3f4a66',
      message,
    ).verify(consumedBy(harness));
    expect((await notified()).map((row) => row.retracted)).toEqual([true, true]);
  });
});
