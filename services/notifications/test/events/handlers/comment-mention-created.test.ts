import { newId } from '@recipes/contracts';
import { erasedIdHash } from '@recipes/runtime';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mentionEvent, type NotificationsHarness, notificationsHarnessWith, type TestUser } from '../../support.js';

/** The event handlers against a real database, each event applied as the broker would deliver it. */
let harness: NotificationsHarness, ada: TestUser;
beforeAll(
  async () =>
    ({
      harness,
      users: [ada],
    } = await notificationsHarnessWith(['Ada_Consumer'])),
);
afterAll(() => harness.close());

describe('comment.mention.created', () => {
  it.each([
    ['recipe_comment', 'mention_recipe_comment', 'recipe'],
    ['collection_comment', 'mention_collection_comment', 'collection'],
    ['post_comment', 'mention_post_comment', 'post'],
  ] as const)('turns a %s mention into one unread %s', async (kind, type, contentType) => {
    const bob = await harness.knownUser(`bob_${kind}`);
    const event = mentionEvent(ada, bob, kind);
    await harness.deliver(event);
    expect(await harness.rowsOf(bob.id)).toEqual([
      {
        type,
        actor_id: ada.id,
        content_type: contentType,
        content_id: event.data.targetId,
        comment_id: event.data.commentId,
        is_read: false,
        created_at: new Date(event.data.createdAt),
        source_event_id: event.id,
      },
    ]);
    expect(await harness.countsOf(bob.id)).toEqual({ total: 1, unread: 1 });
  });

  it.each(['mentioned user', 'author'] as const)(
    'stores nothing when the %s was erased before the mention came (its handler checks as it stores)',
    async (who) => {
      const bob = await harness.knownUser(`bob_erased_${who.length}`);
      const author = await harness.knownUser(`author_erased_${who.length}`);
      const erased = who === 'author' ? author : bob;
      await harness.pool.query(`INSERT INTO erased_users (id_hash) VALUES (${erasedIdHash('$1')})`, [erased.id]);
      await harness.deliver(mentionEvent(author, bob, 'recipe_comment'));
      expect(await harness.rowsOf(bob.id)).toEqual([]);
      expect(await harness.countsOf(bob.id)).toBeUndefined();
    },
  );

  it('creates nothing more when the same event comes again, one after the other or at once', async () => {
    const bob = await harness.knownUser('bob_redelivered');
    const event = mentionEvent(ada, bob);
    await harness.deliver(event);
    await harness.deliver(event);
    const again = mentionEvent(ada, bob);
    await Promise.all([harness.deliver(again), harness.deliver(again), harness.deliver(again)]);
    expect(await harness.rowsOf(bob.id)).toHaveLength(2);
    expect(await harness.countsOf(bob.id)).toEqual({ total: 2, unread: 2 });
  });

  it('tells nobody when the author mentions themself', async () => {
    await harness.deliver(mentionEvent(ada, ada));
    expect(await harness.rowsOf(ada.id)).toEqual([]);
    expect(await harness.countsOf(ada.id)).toBeUndefined();
  });

  it('gives each of several mentions in one comment its own notification', async () => {
    const [bob, cy] = await Promise.all([harness.knownUser('bob_multi'), harness.knownUser('cy_multi')]);
    const commentId = newId();
    await harness.deliver(mentionEvent(ada, bob, 'post_comment', { commentId }));
    await harness.deliver(mentionEvent(ada, cy, 'post_comment', { commentId }));
    expect((await harness.rowsOf(bob.id)).map((row) => row.comment_id)).toEqual([commentId]);
    expect((await harness.rowsOf(cy.id)).map((row) => row.comment_id)).toEqual([commentId]);
  });

  it('refuses data that breaks the contract, storing nothing', async () => {
    const bob = await harness.knownUser('bob_refused');
    const event = mentionEvent(ada, bob);
    await expect(harness.deliver({ ...event, data: { ...event.data, kind: 'photo_comment' } })).rejects.toThrow();
    await expect(harness.deliver({ ...event, data: { ...event.data, mentionedUserId: 'bob' } })).rejects.toThrow();
    expect(await harness.rowsOf(bob.id)).toEqual([]);
  });
});
