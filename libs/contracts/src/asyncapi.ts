import { z } from 'zod';
import { eventCatalogue } from './events/catalogue.js';
import type { EventDefinition } from './events/envelope.js';

export interface AsyncApiOptions {
  /** The topic exchange every event goes through (EVENTS_EXCHANGE). */
  exchange?: string;
  /** The document's own version. */
  version?: string;
}

type JsonObject = Record<string, unknown>;

/**
 * The document's outline; channels, operations and messages are plain JSON, as the AsyncAPI 3.0 schema defines them.
 */
export type AsyncApiDocument = {
  asyncapi: '3.0.0';
  info: { title: string; version: string; description: string };
  defaultContentType: string;
  channels: Record<string, JsonObject>;
  operations: Record<string, JsonObject>;
  components: { messages: Record<string, JsonObject> };
};

/** AsyncAPI 3.0 accepts JSON Schema draft 7 as its default schema format. */
function jsonSchema(schema: z.ZodType): JsonObject {
  const { $schema: _dialect, ...rest } = z.toJSONSchema(schema, { target: 'draft-7' }) as JsonObject;
  return rest;
}

/** `user.created` version 1 → `user.created.v1`: one message per type and version. */
const messageId = (definition: EventDefinition) => `${definition.type}.v${definition.version}`;

/**
 * The whole message body: the envelope (docs/api.md §8), pinned to this type, version and producer, around its data.
 */
function envelopeSchema(definition: EventDefinition): JsonObject {
  return {
    type: 'object',
    required: ['id', 'type', 'version', 'occurredAt', 'producer', 'correlationId', 'data'],
    additionalProperties: false,
    properties: {
      id: {
        type: 'string',
        format: 'uuid',
        description: 'Unique per event; also the AMQP message id. Consumers deduplicate on it.',
      },
      type: { const: definition.type, description: 'Also the routing key and the AMQP type property.' },
      version: { const: definition.version, description: 'A breaking change of `data` is a new version.' },
      occurredAt: { type: 'string', format: 'date-time' },
      producer: { const: definition.producer },
      correlationId: {
        type: 'string',
        minLength: 1,
        description: 'The request that caused the event; also the AMQP correlation id.',
      },
      data: jsonSchema(definition.data),
    },
  };
}

/**
 * The AsyncAPI 3.0 document of the event catalogue: one channel per routing key on the topic exchange,
 * one message per type and version, a `send` operation for the producer and a `receive` operation for
 * each consumer (operation ids `<service>.send.<type>` / `<service>.receive.<type>`).
 */
export function asyncApiDocument(
  { exchange = 'recipes.events', version = '1.0.0' }: AsyncApiOptions = {},
  catalogue: readonly EventDefinition[] = eventCatalogue,
): AsyncApiDocument {
  const channels: AsyncApiDocument['channels'] = {};
  const operations: AsyncApiDocument['operations'] = {};
  const messages: AsyncApiDocument['components']['messages'] = {};

  for (const definition of catalogue) {
    const id = messageId(definition);
    messages[id] = {
      name: definition.type,
      title: `${definition.type} v${definition.version}`,
      summary: definition.description,
      contentType: 'application/json',
      correlationId: { location: '$message.payload#/correlationId' },
      payload: envelopeSchema(definition),
      bindings: { amqp: { messageType: definition.type, bindingVersion: '0.3.0' } },
    };

    const channel = (channels[definition.type] ??= {
      address: definition.type,
      title: definition.type,
      description: `Routing key \`${definition.type}\` on the topic exchange \`${exchange}\`.`,
      messages: {},
      bindings: {
        amqp: {
          is: 'routingKey',
          exchange: { name: exchange, type: 'topic', durable: true, autoDelete: false, vhost: '/' },
          bindingVersion: '0.3.0',
        },
      },
    }) as { messages: JsonObject };
    channel.messages[id] = { $ref: `#/components/messages/${id}` };

    const channelRef = { $ref: `#/channels/${definition.type}` };
    const messageRefs = [{ $ref: `#/channels/${definition.type}/messages/${id}` }];
    const send = `${definition.producer}.send.${definition.type}`;
    operations[send] = {
      action: 'send',
      channel: channelRef,
      messages: messageRefs,
      summary: `${definition.producer} publishes ${definition.type} through its outbox.`,
      tags: [{ name: definition.producer }],
    };
    for (const consumer of definition.consumers) {
      operations[`${consumer}.receive.${definition.type}`] = {
        action: 'receive',
        channel: channelRef,
        messages: messageRefs,
        summary: `${consumer} consumes ${definition.type} from its queue \`${exchange}.${consumer}\`.`,
        tags: [{ name: consumer }],
        bindings: { amqp: { ack: true, bindingVersion: '0.3.0' } },
      };
    }
  }

  return {
    asyncapi: '3.0.0',
    info: {
      title: 'Recipe sharing events',
      version,
      description:
        'Every event the services exchange over RabbitMQ, generated from the catalogue in @recipes/contracts. ' +
        'Producers write events to a transactional outbox; consumers read them from one durable quorum queue per service, ' +
        'with a dead-letter queue beside it.',
    },
    defaultContentType: 'application/json',
    channels,
    operations,
    components: { messages },
  };
}
