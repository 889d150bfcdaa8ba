import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type NotificationsHarness, notificationsHarnessWith, tagEvent, type TestUser } from '../../support.js';

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

describe('content.user.tagged', () => {
  it.each([
    ['recipe', 'tag_recipe'],
    ['post', 'tag_post'],
  ] as const)('turns a tag in a %s into one unread %s without a comment', async (contentType, type) => {
    const bob = await harness.knownUser(`bob_tag_${contentType}`);
    const event = tagEvent(ada, bob, contentType);
    await harness.deliver(event);
    await harness.deliver(event);
    expect(await harness.rowsOf(bob.id)).toEqual([
      {
        type,
        actor_id: ada.id,
        content_type: contentType,
        content_id: event.data.contentId,
        comment_id: null,
        is_read: false,
        created_at: new Date(event.data.createdAt),
        source_event_id: event.id,
      },
    ]);
    expect(await harness.countsOf(bob.id)).toEqual({ total: 1, unread: 1 });
  });

  it('tells nobody when the author tags themself', async () => {
    await harness.deliver(tagEvent(ada, ada, 'post'));
    expect(await harness.rowsOf(ada.id)).toEqual([]);
  });
});

describe('the unique source event id', () => {
  it('stops a second row and a second count even where processed_events has forgotten the event', async () => {
    const bob = await harness.knownUser('bob_second_line');
    const event = tagEvent(ada, bob);
    await harness.deliver(event);
    await harness.pool.query('DELETE FROM processed_events WHERE event_id = $1', [event.id]);
    await harness.deliver(event);
    expect(await harness.rowsOf(bob.id)).toHaveLength(1);
    expect(await harness.countsOf(bob.id)).toEqual({ total: 1, unread: 1 });
  });
});
