import { amqpUrl, createTcpProxy, eventually, type TcpProxy } from '@recipes/testing';
import { type ServiceOnBroker, serviceOnBroker } from '@recipes/testing/service';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { UsersConfig } from '../src/config.js';
import { usersService } from '../src/service.js';

/**
 * The end of a session leaving the users service through the real broker (docs/api.md §11.1), and what
 * happens to one that ends while the broker cannot be reached: it waits in the outbox, and goes out as
 * soon as the broker is back, however long the relay's pause after its failures had grown.
 */
let running: ServiceOnBroker<UsersConfig>;
let proxy: TcpProxy;

beforeAll(async () => {
  proxy = await createTcpProxy(amqpUrl());
  running = await serviceOnBroker(usersService, {
    brokerUrl: proxy.url,
    neighbours: [proxy],
    listen: ['user.session.ended'],
  });
});
afterAll(() => running?.close());

const app = () => running.service.app;
async function loggedIn(username: string) {
  const registered = await app().inject({
    method: 'POST',
    url: '/api/auth/register',
    payload: { username, password: 'password123' },
  });
  expect(registered.statusCode).toBe(201);
  return registered.json() as { user: { id: string }; token: string };
}
const endsOf = (userId: string) =>
  running.received.filter(
    (event) => event.type === 'user.session.ended' && (event.data as { userId: string }).userId === userId,
  );

describe('user.session.ended on the broker', () => {
  it('is published at a logout, and the token is refused here at once', async () => {
    const { user, token } = await loggedIn('broker_ada');
    expect(
      (await app().inject({ method: 'POST', url: '/api/auth/logout', headers: { authorization: `Bearer ${token}` } }))
        .statusCode,
    ).toBe(200);
    expect(
      (await app().inject({ method: 'GET', url: '/api/users/me', headers: { authorization: `Bearer ${token}` } }))
        .statusCode,
    ).toBe(401);
    await eventually(async () => (endsOf(user.id).length === 1 ? true : undefined), 2_000);
  });

  it('ended while the broker is away, is published within 1 s of its return, however long its pause had grown', async () => {
    const { user, token } = await loggedIn('broker_bob');
    proxy.cut();
    expect(
      (await app().inject({ method: 'POST', url: '/api/auth/logout', headers: { authorization: `Bearer ${token}` } }))
        .statusCode,
    ).toBe(200);
    // Refused here meanwhile: the end was kept in the transaction that made it.
    expect(
      (await app().inject({ method: 'GET', url: '/api/users/me', headers: { authorization: `Bearer ${token}` } }))
        .statusCode,
    ).toBe(401);
    // Its publishes failed (each after the publish time-out) until it waits in the outbox, not due for 1.5 s or more.
    const pausedFor = async () =>
      (
        await running.service.pool.query<{ ms: number }>(
          "SELECT (extract(epoch FROM available_at - clock_timestamp()) * 1000)::float8 AS ms FROM outbox WHERE type = 'user.session.ended'",
        )
      ).rows[0]?.ms ?? 0;
    await eventually(async () => ((await pausedFor()) > 1_500 ? true : undefined), 25_000, 50);
    expect(endsOf(user.id)).toEqual([]);
    proxy.restore();
    const restored = performance.now();
    await eventually(async () => (endsOf(user.id).length === 1 ? true : undefined), 1_000, 10);
    expect(performance.now() - restored).toBeLessThan(1_000);
  }, 40_000);
});
