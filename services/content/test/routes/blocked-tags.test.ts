import { createEvent, userBlocked, type UserRelation, userUnblocked } from '@recipes/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ContentHarness, contentHarness, outboxEvents, type TestUser } from '../support.js';

/**
 * A blocked user cannot tag the blocker (docs/api.md §10): the recipe or post is published, the blocker's
 * name is ignored as an unknown one is (no tag row, no event, no budget spent), and the author is told
 * nothing. Learnt from user.blocked and user.unblocked.
 */
let harness: ContentHarness;
beforeAll(async () => (harness = await contentHarness({ NOTIFICATION_BUDGET_PER_HOUR: '20' })));
afterAll(() => harness.close());

function blockEvent(blocker: { id: string }, blocked: { id: string }, on: boolean, revision: number) {
  const at = new Date().toISOString();
  const relation: UserRelation = {
    userId: blocker.id,
    targetId: blocked.id,
    muted: false,
    blocked: on,
    revision,
    changedAt: at,
    lastUnblockedAt: on ? null : at,
  };
  return createEvent(on ? userBlocked : userUnblocked, relation, { producer: 'users', correlationId: 'test-block' });
}

const drafts = {
  recipe: {
    url: '/api/recipes',
    body: { title: 'Velvia', cameraModel: 'X100V', filmSimulation: 'Velvia' },
    tags: 'recipe_tags',
    column: 'recipe_id',
  },
  post: { url: '/api/posts', body: { title: 'Harbour at dusk' }, tags: 'post_tags', column: 'post_id' },
} as const;

let counter = 0;
const people = async () => {
  counter += 1;
  return Promise.all([
    harness.knownUser(`Blocker_${counter}`),
    harness.knownUser(`Blocked_${counter}`),
    harness.knownUser(`Friend_${counter}`),
  ]);
};

describe.each(['recipe', 'post'] as const)('a blocked user tagging the blocker in a %s', (kind) => {
  const { url, body, tags, column } = drafts[kind];
  async function publish(author: TestUser, names: string[]) {
    const response = await harness.call('POST', url, author, { ...body, taggedUsernames: names });
    expect(response.statusCode).toBe(201);
    const created = response.json()[kind];
    const { rows } = await harness.pool.query(`SELECT user_id FROM ${tags} WHERE ${column} = $1`, [created.id]);
    const events = (await outboxEvents(harness.pool, 'content.user.tagged')).filter(
      (event) => event.data.contentId === created.id,
    );
    return {
      created,
      tagged: rows.map((row) => row.user_id).sort(),
      notified: events.map((event) => event.data.taggedUserId).sort(),
    };
  }

  it('publishes it without that tag, and tags the others', async () => {
    const [blocker, blocked, friend] = await people();
    await harness.deliver(blockEvent(blocker, blocked, true, 1));
    const { created, tagged, notified } = await publish(blocked, [blocker.username, friend.username]);
    expect(created.title).toBe(body.title);
    expect(tagged).toEqual([friend.id]);
    expect(notified).toEqual([friend.id]);
  });

  it('tags them again once unblocked; the blocker may tag the one they blocked', async () => {
    const [blocker, blocked] = await people();
    await harness.deliver(blockEvent(blocker, blocked, true, 1));
    expect((await publish(blocker, [blocked.username])).tagged).toEqual([blocked.id]);
    await harness.deliver(blockEvent(blocker, blocked, false, 2));
    expect((await publish(blocked, [blocker.username])).tagged).toEqual([blocker.id]);
  });

  it('spends none of the budget on the dropped name', async () => {
    const [blocker, blocked] = await people();
    await harness.deliver(blockEvent(blocker, blocked, true, 1));
    // Twenty blocked tags are worth nothing: a twenty-first request still publishes.
    for (let i = 0; i < 21; i++) await publish(blocked, [blocker.username]);
  });
});
