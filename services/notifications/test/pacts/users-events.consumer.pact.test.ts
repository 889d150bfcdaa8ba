import { asynchronousBodyHandler, MatchersV3 } from '@pact-foundation/pact';
import { userCreated, userUpdated } from '@recipes/contracts';
import { eventMessage } from '@recipes/testing/pact';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type NotificationsHarness, notificationsHarness } from '../support.js';
import { consumedBy, deliveredAs, eventsPact } from './support.js';

/** What notifications needs of the user events: enough to show an actor, and the revision to order updates. */
const { integer, like, uuid } = MatchersV3;
let harness: NotificationsHarness;
beforeAll(async () => {
  harness = await notificationsHarness();
});
afterAll(() => harness.close());
const pact = eventsPact('users');

const USER = '0190f5a4-1c2d-7e3f-8a9b-0c1d2e3f4a71';

async function known() {
  const { rows } = await harness.pool.query('SELECT username, avatar_url, revision FROM users WHERE id = $1', [USER]);
  return rows;
}

describe('user events', () => {
  it('learns a user who registered without an avatar from user.created', async () => {
    const message = eventMessage(userCreated, { id: uuid(USER), username: like('Ada_Pact'), avatarUrl: null, revision: integer(0) });
    await pact
      .expectsToReceive('a user.created for a user who registered without an avatar')
      .withContent(deliveredAs('0190f5a4-1c2d-7e3f-8a9b-0c1d2e3f4a72', message))
      .withMetadata({ contentType: 'application/json' })
      .verify(asynchronousBodyHandler(consumedBy(harness)));
    expect(await known()).toEqual([{ username: 'Ada_Pact', avatar_url: null, revision: 0 }]);
  });

  it('follows an avatar change from user.updated', async () => {
    const message = eventMessage(userUpdated, {
      id: uuid(USER),
      username: like('Ada_Pact'),
      avatarUrl: like('https://cdn.example.com/ada.png'),
      revision: integer(1),
    });
    await pact
      .expectsToReceive('a user.updated for a user who changed their avatar')
      .withContent(deliveredAs('0190f5a4-1c2d-7e3f-8a9b-0c1d2e3f4a73', message))
      .withMetadata({ contentType: 'application/json' })
      .verify(asynchronousBodyHandler(consumedBy(harness)));
    expect(await known()).toEqual([{ username: 'Ada_Pact', avatar_url: 'https://cdn.example.com/ada.png', revision: 1 }]);
  });
});
