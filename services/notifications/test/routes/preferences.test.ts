import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  bearer,
  expectProblem,
  mentionEvent,
  type NotificationsHarness,
  notificationsHarnessWith,
  tagEvent,
  type TestUser,
} from '../support.js';

/** Notification preferences: `/api/notifications/preferences` (src/routes/preferences). */
let harness: NotificationsHarness, ada: TestUser;
beforeAll(
  async () =>
    ({
      harness,
      users: [ada],
    } = await notificationsHarnessWith(['Ada_Prefers'])),
);
afterAll(() => harness.close());

const allOn = {
  mention_recipe_comment: true,
  mention_collection_comment: true,
  mention_post_comment: true,
  tag_recipe: true,
  tag_post: true,
  reply_comment: true,
  comment_recipe: true,
  comment_post: true,
  comment_collection: true,
};
const get = (user: TestUser) =>
  harness.app.inject({ method: 'GET', url: '/api/notifications/preferences', headers: bearer(user) });
const put = (user: TestUser, payload: unknown) =>
  harness.app.inject({
    method: 'PUT',
    url: '/api/notifications/preferences',
    headers: bearer(user),
    payload: payload as object,
  });
const types = async (user: TestUser) =>
  (await harness.app.inject({ method: 'GET', url: '/api/notifications?limit=100', headers: bearer(user) }))
    .json()
    .data.map((n: { type: string }) => n.type)
    .sort();

describe('/api/notifications/preferences', () => {
  it('has every type on by default', async () => {
    const bob = await harness.knownUser('Bob_Default');
    const response = await get(bob);
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ types: allOn });
  });

  it('changes the types given, keeps the others, and answers the whole object', async () => {
    const cy = await harness.knownUser('Cy_Changes');
    expect((await put(cy, { types: { tag_post: false } })).json()).toEqual({ types: { ...allOn, tag_post: false } });
    expect((await put(cy, { types: { mention_post_comment: false, tag_recipe: false } })).json()).toEqual({
      types: { ...allOn, tag_post: false, mention_post_comment: false, tag_recipe: false },
    });
    expect((await put(cy, { types: { tag_post: true }, other: 1 })).json()).toEqual({
      types: { ...allOn, mention_post_comment: false, tag_recipe: false },
    });
    expect((await get(cy)).json()).toEqual({ types: { ...allOn, mention_post_comment: false, tag_recipe: false } });
    // Another user's are their own.
    expect((await get(ada)).json()).toEqual({ types: allOn });
  });

  it.each([
    ['an unknown type', { types: { tag_comment: false } }],
    ['a value that is not a boolean', { types: { tag_post: 'false' } }],
    ['null', { types: { tag_post: null } }],
    ['no types', {}],
    ['types that are not an object', { types: ['tag_post'] }],
  ])('refuses %s with 400, changing nothing', async (_case, payload) => {
    const dee = await harness.knownUser(`Dee_${Math.random().toString(36).slice(2, 8)}`);
    await put(dee, { types: { tag_recipe: false } });
    expectProblem(await put(dee, payload), 400);
    expect((await get(dee)).json()).toEqual({ types: { ...allOn, tag_recipe: false } });
  });

  it('needs a token', async () => {
    expectProblem(await harness.app.inject({ method: 'GET', url: '/api/notifications/preferences' }), 401);
    expectProblem(
      await harness.app.inject({
        method: 'PUT',
        url: '/api/notifications/preferences',
        payload: { types: { tag_post: 5 } },
      }),
      401,
    );
  });

  it('stores nothing of a type turned off from then on; what was stored stays, and turning it on again notifies again', async () => {
    const eve = await harness.knownUser('Eve_Turns_Off');
    await harness.deliver(tagEvent(ada, eve, 'post'));
    await put(eve, { types: { tag_post: false } });
    await harness.deliver(tagEvent(ada, eve, 'post'));
    await harness.deliver(tagEvent(ada, eve, 'recipe'));
    await harness.deliver(mentionEvent(ada, eve, 'post_comment'));
    expect(await types(eve)).toEqual(['mention_post_comment', 'tag_post', 'tag_recipe']);
    expect(await harness.countsOf(eve.id)).toEqual({ total: 3, unread: 3 });

    await put(eve, { types: { tag_post: true } });
    await harness.deliver(tagEvent(ada, eve, 'post'));
    expect(await types(eve)).toEqual(['mention_post_comment', 'tag_post', 'tag_post', 'tag_recipe']);
  });
});
