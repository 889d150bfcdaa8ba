import { Parser } from '@asyncapi/parser';
import { describe, expect, it } from 'vitest';
import { asyncApiDocument, eventCatalogue } from '../src/index.js';

const document = asyncApiDocument({ exchange: 'recipes.events', version: '1.2.3' });
const parser = new Parser();

/** Diagnostics of severity error (0) or warning (1); information and hints are left out. */
async function problems(candidate: object) {
  const diagnostics = await parser.validate(JSON.stringify(candidate));
  return diagnostics
    .filter((diagnostic) => diagnostic.severity <= 1)
    .map(({ code, message, path }) => `${code} at ${path.join('.')}: ${message}`);
}

type Operation = { action: string; channel: { $ref: string }; messages: Array<{ $ref: string }> };

describe('AsyncAPI document of the event catalogue', () => {
  it('is valid AsyncAPI 3.0, without errors or warnings', async () => {
    expect(await problems(document)).toEqual([]);
  });

  it('is rejected by the same check when broken, so the check can fail', async () => {
    const broken = {
      ...document,
      operations: { dangling: { action: 'send', channel: { $ref: '#/channels/no.such.type' } } },
    };
    expect(await problems(broken)).not.toEqual([]);
  });

  it('has one channel per event type, addressed by its routing key on the topic exchange', async () => {
    const { document: parsed } = await parser.parse(JSON.stringify(document));
    const addresses = parsed!
      .channels()
      .all()
      .map((channel) => channel.address());
    expect(addresses.sort()).toEqual([...new Set(eventCatalogue.map((event) => event.type))].sort());
    const bindings = (
      document.channels as Record<string, { bindings: { amqp: { exchange: { name: string; type: string } } } }>
    )['user.created']!.bindings;
    expect(bindings.amqp.exchange).toMatchObject({ name: 'recipes.events', type: 'topic' });
  });

  it('sends each event from its producer and receives it at each of its consumers, and nothing else', () => {
    const operations = document.operations as Record<string, Operation>;
    const expected = eventCatalogue.flatMap((event) => [
      `${event.producer}.send.${event.type}`,
      ...event.consumers.map((consumer) => `${consumer}.receive.${event.type}`),
    ]);
    expect(Object.keys(operations).sort()).toEqual(expected.sort());
    expect(operations['notifications.receive.comment.mention.created']).toMatchObject({
      action: 'receive',
      channel: { $ref: '#/channels/comment.mention.created' },
      messages: [{ $ref: '#/channels/comment.mention.created/messages/comment.mention.created.v1' }],
    });
    expect(operations['comments.send.comment.mention.created']?.action).toBe('send');
  });

  it('describes the envelope as the payload, pinned to the type, with the data schema from zod', () => {
    const messages = (
      document.components as {
        messages: Record<string, { payload: { properties: Record<string, unknown>; required: string[] } }>;
      }
    ).messages;
    const payload = messages['user.created.v1']!.payload;
    expect(payload.required).toEqual(['id', 'type', 'version', 'occurredAt', 'producer', 'correlationId', 'data']);
    expect(payload.properties).toMatchObject({
      type: { const: 'user.created' },
      version: { const: 1 },
      producer: { const: 'users' },
      data: {
        type: 'object',
        required: ['id', 'username', 'avatarUrl', 'revision'],
        properties: { id: { type: 'string', format: 'uuid' }, avatarUrl: { type: ['string', 'null'] } },
      },
    });
    expect(JSON.stringify(document)).not.toContain('$schema');
  });
});
