import { newId } from '@recipes/contracts';
import { describe, expect, it } from 'vitest';
import { fromMention, fromTag, toNotification } from '../src/notifications.js';
import type { NotificationRecord } from '../src/repository/rows.js';

const actorId = newId();
const userId = newId();
const createdAt = '2026-11-22T10:00:00.000Z';

describe('fromMention', () => {
  it.each([
    ['recipe_comment', 'recipe', 'mention_recipe_comment'],
    ['collection_comment', 'collection', 'mention_collection_comment'],
    ['post_comment', 'post', 'mention_post_comment'],
  ] as const)('turns a %s mention into %s content, type %s', (kind, targetType, type) => {
    const mention = {
      kind,
      mentionId: newId(),
      mentionedUserId: userId,
      actorId,
      commentId: newId(),
      targetType,
      targetId: newId(),
      createdAt,
    };
    expect(fromMention(mention)).toEqual({
      recipientId: userId,
      type,
      actorId,
      contentType: targetType,
      contentId: mention.targetId,
      commentId: mention.commentId,
      createdAt,
    });
  });

  it('tells nobody when the author mentions themself', () => {
    const mention = {
      kind: 'post_comment',
      mentionId: newId(),
      mentionedUserId: actorId,
      actorId,
      commentId: newId(),
      targetType: 'post',
      targetId: newId(),
      createdAt,
    } as const;
    expect(fromMention(mention)).toBeUndefined();
  });
});

describe('fromTag', () => {
  it.each([
    ['recipe', 'tag_recipe'],
    ['post', 'tag_post'],
  ] as const)('turns a tag in a %s into %s, with no comment', (contentType, type) => {
    const contentId = newId();
    expect(fromTag({ contentType, contentId, actorId, taggedUserId: userId, createdAt })).toEqual({
      recipientId: userId,
      type,
      actorId,
      contentType,
      contentId,
      commentId: null,
      createdAt,
    });
  });

  it('tells nobody when the author tags themself', () => {
    expect(
      fromTag({ contentType: 'recipe', contentId: newId(), actorId, taggedUserId: actorId, createdAt }),
    ).toBeUndefined();
  });
});

describe('toNotification', () => {
  const actor = { id: actorId, username: 'ada', avatarUrl: null };
  const record: NotificationRecord = {
    id: newId(),
    type: 'mention_post_comment',
    actorId,
    contentType: 'post',
    contentId: newId(),
    commentId: newId(),
    isRead: false,
    createdAt: new Date(createdAt),
  };

  it('shows a mention with its comment and an ISO timestamp with milliseconds', () => {
    expect(toNotification(record, actor)).toEqual({
      id: record.id,
      type: 'mention_post_comment',
      actor,
      contentType: 'post',
      contentId: record.contentId,
      commentId: record.commentId,
      isRead: false,
      createdAt,
    });
  });

  it('leaves commentId out of a tag altogether', () => {
    const tag = toNotification({ ...record, type: 'tag_post', commentId: null }, actor);
    expect(Object.keys(tag)).not.toContain('commentId');
  });
});
