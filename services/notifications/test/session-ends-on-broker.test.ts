import { createEvent, type EventEnvelope, newId, type SessionEnded, userSessionEnded } from '@recipes/contracts';
import { amqpUrl, createTcpProxy, eventually, type TcpProxy } from '@recipes/testing';
import { type ServiceOnBroker, serviceOnBroker } from '@recipes/testing/service';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { NotificationsConfig } from '../src/config.js';
import { notificationsService } from '../src/service.js';

/**
 * The end of a session reaching the notifications service through the real broker (docs/api.md §11.1):
 * its own instance queue and its durable queue, and what happens while its link to the broker is cut.
 */
let running: ServiceOnBroker<NotificationsConfig>;
let proxy: TcpProxy;

beforeAll(async () => {
  proxy = await createTcpProxy(amqpUrl());
  running = await serviceOnBroker(notificationsService, {
    brokerUrl: proxy.url,
    neighbours: [proxy],
    env: { USERS_INTERNAL_URL: 'http://127.0.0.1:1' },
  });
});
afterAll(() => running?.close());

const userId = newId();
function session() {
  const id = newId();
  return {
    id,
    token: running.tokenFor({
      id: userId,
      username: 'ada_on_broker',
      sessionId: id,
      issuedAt: Math.floor(Date.now() / 1000),
    }),
  };
}
const ended = (sessionId: string): EventEnvelope => {
  const data: SessionEnded = {
    userId,
    sessionIds: [sessionId],
    notBefore: null,
    reason: 'logout',
    endedAt: new Date().toISOString(),
    tokensExpireBy: new Date(Date.now() + 900_000).toISOString(),
  };
  return createEvent(userSessionEnded, data, { producer: 'users', correlationId: 'broker-session-end' });
};
const status = async (token: string) =>
  (
    await running.service.app.inject({
      method: 'GET',
      url: '/api/notifications/unread-count',
      headers: { authorization: `Bearer ${token}` },
    })
  ).statusCode;

/** Milliseconds from now until `token` is refused. */
async function refusedWithin(token: string, timeoutMs: number): Promise<number> {
  const started = performance.now();
  await eventually(async () => ((await status(token)) === 401 ? true : undefined), timeoutMs, 10);
  return performance.now() - started;
}

describe('an ended session heard through the broker', () => {
  it('is refused within 1 s of its event, and kept in the service’s table', async () => {
    const phone = session();
    expect(await status(phone.token)).toBe(200);
    await running.publish(ended(phone.id));
    expect(await refusedWithin(phone.token, 1_000)).toBeLessThan(1_000);
    await eventually(async () =>
      (await running.service.pool.query('SELECT 1 FROM ended_sessions WHERE session_id = $1', [phone.id])).rowCount
        ? true
        : undefined,
    );
  });

  it('ended while the service cannot reach the broker, is refused within 1 s of its return', async () => {
    const laptop = session();
    const other = session();
    expect(await status(laptop.token)).toBe(200);
    proxy.cut();
    await running.publish(ended(laptop.id));
    // Cut off, it cannot know: the token is taken (for at most its lifetime), and the event waits in its durable queue.
    expect(await status(laptop.token)).toBe(200);
    proxy.restore();
    // Back within its reconnect delay (AMQP_RECONNECT_DELAY_MS, 500 ms), the event waiting in its durable queue comes.
    expect(await refusedWithin(laptop.token, 1_000)).toBeLessThan(1_000);
    expect(await status(other.token)).toBe(200);
  }, 15_000);
});
