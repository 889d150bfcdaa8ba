import { MatchersV3 } from '@pact-foundation/pact';
import { userCreated, userUpdated } from '@recipes/contracts';
import { eventMessage } from '@recipes/testing/pact';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type NotificationsHarness, notificationsHarness } from '../support.js';
import { consumedBy, delivery, eventsPact } from './support.js';

/** What notifications needs of the user events: enough to show an actor, and the revision to order updates. */
const pact = eventsPact('users');
const { integer, like, uuid } = MatchersV3;
let harness: NotificationsHarness;
beforeAll(async () => {
  harness = await notificationsHarness();
});
afterAll(() => harness.close());

const USER = '0190f5a4-1c2d-7e3f-8a9b-0c1d2e3f4a71';

async function known() {
  const { rows } = await harness.pool.query('SELECT username, avatar_url, revision FROM users WHERE id = $1', [USER]);
  return rows;
}

describe('user events', () => {
  it('learns a user who registered without an avatar from user.created', async () => {
    const message = eventMessage(userCreated, { id: uuid(USER), username: like('Ada_Pact'), avatarUrl: null, revision: integer(0) });
    await delivery(pact, 'a user.created for a user who registered without an avatar', '0190f5a4-1c2d-7e3f-8a9b-0c1d2e3f4a72', message).verify(consumedBy(harness));
    expect(await known()).toEqual([{ username: 'Ada_Pact', avatar_url: null, revision: 0 }]);
  });

  it('follows an avatar change from user.updated', async () => {
    const message = eventMessage(userUpdated, {
      id: uuid(USER),
      username: like('Ada_Pact'),
      avatarUrl: like('https://cdn.example.com/ada.png'),
      revision: integer(1),
    });
    await delivery(pact, 'a user.updated for a user who changed their avatar', '0190f5a4-1c2d-7e3f-8a9b-0c1d2e3f4a73', message).verify(consumedBy(harness));
    expect(await known()).toEqual([{ username: 'Ada_Pact', avatar_url: 'https://cdn.example.com/ada.png', revision: 1 }]);
  });
});
