import { newId } from '@recipes/contracts';
import { describe, expect, it } from 'vitest';
import { type Candidate, whyWithheld, withholdingRules, type World } from '../src/rules/index.js';
import { storeNotificationsFunction } from '../src/rules/store-function.js';

/** The rules read without a database: what each withholds, and which one `store_notifications` would name. */
const nothing: World = {
  deletedContent: [],
  deletedComments: [],
  relations: [],
  preferences: [],
  erasedUsers: [],
  notifications: [],
};
const [ada, bob] = [newId(), newId()];
const mention: Candidate = {
  recipientId: ada,
  type: 'mention_recipe_comment',
  actorId: bob,
  contentType: 'recipe',
  contentId: newId(),
  commentId: newId(),
  createdAt: '2026-11-29T10:00:00.000Z',
  sourceEventId: newId(),
};
const relation = { userId: ada, targetId: bob, muted: false, blocked: false, lastUnblockedAt: null };

describe('who gets notified', () => {
  it('stores a notification that no rule withholds', () => {
    expect(whyWithheld(nothing, mention)).toBeUndefined();
  });

  it.each([
    [
      'event_stored_before',
      { notifications: [{ recipientId: newId(), commentId: null, sourceEventId: mention.sourceEventId }] },
    ],
    ['erased_user', { erasedUsers: [ada] }],
    ['erased_user', { erasedUsers: [bob] }],
    ['deleted_content', { deletedContent: [{ type: 'recipe' as const, id: mention.contentId }] }],
    ['deleted_comment', { deletedComments: [mention.commentId!] }],
    ['silenced_actor', { relations: [{ ...relation, muted: true }] }],
    ['silenced_actor', { relations: [{ ...relation, blocked: true }] }],
    ['silenced_actor', { relations: [{ ...relation, lastUnblockedAt: mention.createdAt }] }],
    ['type_turned_off', { preferences: [{ recipientId: ada, type: mention.type, enabled: false }] }],
    [
      'notified_of_comment',
      { notifications: [{ recipientId: ada, commentId: mention.commentId, sourceEventId: newId() }] },
    ],
  ])('withholds it by %s', (rule, part) => {
    expect(whyWithheld({ ...nothing, ...part }, mention)).toBe(rule);
  });

  it.each([
    ['the same content of another type', { deletedContent: [{ type: 'post' as const, id: mention.contentId }] }],
    [
      'a block that ended before it was made',
      { relations: [{ ...relation, lastUnblockedAt: '2026-11-29T09:59:59.999Z' }] },
    ],
    ['a mute of the recipient by the actor', { relations: [{ ...relation, userId: bob, targetId: ada, muted: true }] }],
    ['a type turned back on', { preferences: [{ recipientId: ada, type: mention.type, enabled: true }] }],
    ['another type turned off', { preferences: [{ recipientId: ada, type: 'tag_recipe', enabled: false }] }],
    [
      'the comment notifying someone else',
      { notifications: [{ recipientId: bob, commentId: mention.commentId, sourceEventId: newId() }] },
    ],
  ])('does not withhold it for %s', (_case, part) => {
    expect(whyWithheld({ ...nothing, ...part }, mention)).toBeUndefined();
  });

  it('names the first rule that holds, in the order store_notifications checks them', () => {
    const world = { ...nothing, deletedComments: [mention.commentId!], relations: [{ ...relation, muted: true }] };
    expect(whyWithheld(world, mention)).toBe('deleted_comment');
    const sql = storeNotificationsFunction().create;
    const order = withholdingRules.map((rule) => sql.indexOf(`THEN '${rule.name}'`));
    expect(order.every((at) => at > 0)).toBe(true);
    expect([...order].sort((a, b) => a - b)).toEqual(order);
  });

  it('never withholds a tag for a comment it has not got', () => {
    const tag: Candidate = { ...mention, type: 'tag_recipe', commentId: null };
    const world = { ...nothing, notifications: [{ recipientId: ada, commentId: null, sourceEventId: newId() }] };
    expect(whyWithheld(world, tag)).toBeUndefined();
  });
});
