import { fileURLToPath } from 'node:url';
import { generateSigningKeyPair } from '@recipes/auth';
import { parseConfig } from '@recipes/config';
import { eventCatalogue, eventsProducedBy } from '@recipes/contracts';
import type { Pool } from '@recipes/db';
import { createLogger } from '@recipes/logging';
import { EndedSessions, promptsUnsent, type RunningService } from '@recipes/runtime';
import { amqpUrl, createTcpProxy, eventually, type TcpProxy } from '@recipes/testing';
import { catalogueDisagreements, serviceEventsOf, sqlOutboxWrites } from '@recipes/testing/catalogue';
import { type ReceivedMessage, type ServiceOnBroker, serviceOnBroker } from '@recipes/testing/service';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type UsersConfig, usersConfigSchema } from '../src/config.js';
import { usersService } from '../src/service.js';

const migrationsDir = fileURLToPath(new URL('../migrations', import.meta.url));

describe('the users service definition', () => {
  it('agrees with the event catalogue: what it handles, what it publishes, what its SQL writes', () => {
    expect(catalogueDisagreements(eventCatalogue, serviceEventsOf(usersService))).toEqual([]);
  });

  it('consumes only the erasure confirmations of deleted accounts, and its SQL writes no events', () => {
    expect(
      serviceEventsOf(usersService)
        .handlers.map((handler) => handler.definition.type)
        .sort(),
    ).toEqual(['collections.user.erased', 'comments.user.erased', 'content.user.erased', 'notifications.user.erased']);
    expect(sqlOutboxWrites(migrationsDir)).toEqual([]);
  });

  it('is the producer of the user events, which its accounts, relations and sessions enqueue', () => {
    expect(eventsProducedBy('users').map((event) => event.type)).toEqual([
      'user.created',
      'user.updated',
      'user.muted',
      'user.unmuted',
      'user.blocked',
      'user.unblocked',
      'user.session.ended',
      'user.deleted',
    ]);
  });

  it('refuses to be built without the private key, which its tokens are signed with', () => {
    const context = {
      config: parseConfig(usersConfigSchema, {}),
      pool: {} as Pool,
      logger: createLogger({ service: 'users', level: 'silent' }),
    };
    expect(() =>
      usersService.parts({
        ...context,
        keys: { publicKey: generateSigningKeyPair().publicKey },
        endedSessions: new EndedSessions(),
        prompts: promptsUnsent,
      }),
    ).toThrow(/private key/);
  });
});

/** The users service as it runs in production, its broker link through a proxy the test can cut. */
let running: ServiceOnBroker<UsersConfig>;
let service: RunningService;
let proxy: TcpProxy;
let received: ReceivedMessage[];

beforeAll(async () => {
  proxy = await createTcpProxy(amqpUrl());
  // A consumer of its own on user.*, straight to the broker, as another service would be.
  running = await serviceOnBroker(usersService, { brokerUrl: proxy.url, neighbours: [proxy], listen: ['user.*'] });
  ({ service, messages: received } = running);
});

afterAll(() => running?.close());

const register = (username: string) =>
  service.app.inject({
    method: 'POST',
    url: '/api/auth/register',
    payload: { username, password: 'password123' },
    headers: { 'x-request-id': `register-${username}` },
  });

const eventsFor = (userId: string) => received.filter((message) => (message.body.data as { id: string }).id === userId);

async function outboxSize(): Promise<number> {
  const { rows } = await service.pool.query<{ count: string }>('SELECT count(*) FROM outbox');
  return Number(rows[0]!.count);
}

describe('user events through the outbox', () => {
  it('publishes user.created once, with the request id as correlation id', async () => {
    const response = await register('online_user');
    expect(response.statusCode).toBe(201);
    const { id } = response.json().user;
    const [message] = await eventually(async () => (eventsFor(id).length > 0 ? eventsFor(id) : undefined));
    expect(message!.body).toMatchObject({
      type: 'user.created',
      producer: 'users',
      correlationId: 'register-online_user',
    });
    expect(message!.messageId).toBe(message!.body.id);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(eventsFor(id)).toHaveLength(1);
  });

  it('registers while the broker is unreachable, and delivers the event exactly once when it is back', async () => {
    proxy.cut();
    const response = await register('offline_user');
    expect(response.statusCode).toBe(201);
    const { id } = response.json().user;

    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect(eventsFor(id)).toHaveLength(0);
    expect(await outboxSize()).toBe(1);

    proxy.restore();
    await eventually(async () => (eventsFor(id).length > 0 ? true : undefined), 20_000);
    await eventually(async () => ((await outboxSize()) === 0 ? true : undefined));
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(eventsFor(id)).toHaveLength(1);
  }, 30_000);
});
