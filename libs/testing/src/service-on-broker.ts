import { generateSigningKeyPair, tokenIssuer, type TokenSubject } from '@recipes/auth';
import { parseConfig } from '@recipes/config';
import { type EventEnvelope, eventEnvelopeSchema } from '@recipes/contracts';
import { createLogger, type Logger } from '@recipes/logging';
import { type BackendConfig, type RunningService, type ServiceDefinition, startBackendService } from '@recipes/runtime';
import { brokerAdmin } from './broker-admin.js';
import { removeExchangeFamily } from './cleanup.js';
import { amqpUrl, createTestDatabase, type TestDatabase, uniqueName } from './index.js';

/** A message that reached the test's own queue: the message id the broker carried, and the envelope. */
export interface ReceivedMessage {
  messageId: string;
  body: EventEnvelope;
}

export interface ServiceOnBrokerOptions {
  /**
   * Settings beyond the database's, the broker's and the exchange's, e.g. where its neighbours are (or that nobody is
   * there).
   */
  env?: Record<string, string>;
  /**
   * Routing patterns to bind a queue of the test's own to, on the service's exchange: what another service would hear.
   */
  listen?: readonly string[];
  /** The service's own way to the broker when not straight there, e.g. a `createTcpProxy` the test can cut. */
  brokerUrl?: string;
  /** Silent unless given, e.g. to read the service's error lines. */
  logger?: Logger;
  /** What to close with the service, e.g. that proxy. */
  neighbours?: { close(): Promise<unknown> }[];
}

export interface ServiceOnBroker<C> {
  service: RunningService;
  config: C;
  /** The topic exchange of this test file alone. */
  exchange: string;
  /** A connection of the test's own, straight to the broker, as the other services would have. */
  broker: Awaited<ReturnType<typeof brokerAdmin>>;
  /** The events that reached the test's queue (see `listen`), in order of arrival. */
  received: EventEnvelope[];
  /** The same, each with the message id the broker carried. */
  messages: ReceivedMessage[];
  /** Publishes `event` to the exchange as its producer's outbox relay would. */
  publish(event: EventEnvelope): Promise<void>;
  /** A token for `user`, signed as the users service signs them, with the key pair the service was given. */
  tokenFor(user: TokenSubject): string;
  /**
   * Closes the service, the test's connection and the neighbours; removes the exchange with its queues and drops the
   * database.
   */
  close(): Promise<void>;
}

/**
 * `definition` as it runs in production (`startBackendService`: migrations, outbox relay, consumer) on a
 * fresh database and a topic exchange of its own on the real broker, with a connection of the test's
 * own to publish what its neighbours would and to hear what it publishes.
 */
export async function serviceOnBroker<C extends BackendConfig, P>(
  definition: ServiceDefinition<C, P>,
  {
    env = {},
    listen = [],
    brokerUrl = amqpUrl(),
    logger = createLogger({ service: definition.name, level: 'silent' }),
    neighbours = [],
  }: ServiceOnBrokerOptions = {},
): Promise<ServiceOnBroker<C>> {
  const exchange = uniqueName(`${definition.name}-events`);
  const keys = generateSigningKeyPair();
  const received: EventEnvelope[] = [];
  const messages: ReceivedMessage[] = [];
  let database: TestDatabase | undefined;
  let service: RunningService | undefined;
  let broker: ServiceOnBroker<C>['broker'] | undefined;

  const close = async () => {
    try {
      await service?.close();
      await broker?.close();
      await Promise.all(neighbours.map((each) => each.close()));
    } finally {
      await removeExchangeFamily(amqpUrl(), exchange);
      await database?.drop();
    }
  };

  try {
    database = await createTestDatabase();
    const config = parseConfig(definition.configSchema, {
      DATABASE_URL: database.url,
      AMQP_URL: brokerUrl,
      EVENTS_EXCHANGE: exchange,
      ...env,
    }) as C;
    service = await startBackendService(definition, { config, keys, logger });
    broker = await brokerAdmin(amqpUrl());
    if (listen.length > 0) {
      const { channel } = broker;
      await channel.assertExchange(exchange, 'topic', { durable: true });
      const { queue } = await channel.assertQueue('', { exclusive: true });
      for (const pattern of listen) await channel.bindQueue(queue, exchange, pattern);
      await channel.consume(queue, (message) => {
        if (!message) return;
        const body = eventEnvelopeSchema.parse(JSON.parse(message.content.toString())) as EventEnvelope;
        received.push(body);
        messages.push({ messageId: message.properties.messageId, body });
        channel.ack(message);
      });
    }
    const sign = tokenIssuer({
      privateKey: keys.privateKey,
      issuer: config.JWT_ISSUER,
      audience: config.JWT_AUDIENCE,
      ttlSeconds: 3600,
    });
    const { publish } = broker;
    return {
      service,
      config,
      exchange,
      broker,
      received,
      messages,
      publish: (event) => publish(exchange, [event]),
      tokenFor: ({ id, username, sessionId, issuedAt }) =>
        sign({
          id,
          username,
          ...(sessionId === undefined ? {} : { sessionId }),
          ...(issuedAt === undefined ? {} : { issuedAt }),
        }),
      close,
    };
  } catch (error) {
    await close().catch(() => undefined);
    throw error;
  }
}
