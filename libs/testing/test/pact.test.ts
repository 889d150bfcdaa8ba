import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { messageProvidersByType, missingConsumerPacts, pactMessages } from '../src/pact.js';

const dir = mkdtempSync(join(tmpdir(), 'pacts-'));
const v3 = join(dir, 'comments-users-events.json');
const v4 = join(dir, 'notifications-users-events.json');
writeFileSync(
  v3,
  JSON.stringify({
    consumer: { name: 'comments' },
    messages: [{ description: 'a new user', contents: { type: 'user.created', data: { n: 1 } } }],
  }),
);
writeFileSync(
  v4,
  JSON.stringify({
    consumer: { name: 'notifications' },
    interactions: [
      { description: 'user.updated', contents: { content: { type: 'user.updated' } } },
      { description: 'user.deleted', contents: { content: { type: 'user.deleted' } } },
    ],
  }),
);

describe('pact messages', () => {
  it('reads consumer, description and example from V3 and V4 message pacts', () => {
    expect(pactMessages([v3, v4])).toEqual([
      { consumer: 'comments', description: 'a new user', example: { type: 'user.created', data: { n: 1 } } },
      { consumer: 'notifications', description: 'user.updated', example: { type: 'user.updated' } },
      { consumer: 'notifications', description: 'user.deleted', example: { type: 'user.deleted' } },
    ]);
  });

  it('maps each description to the producer of its event type, given the example data, and leaves out types nobody produces', async () => {
    const providers = messageProvidersByType([v3, v4], {
      'user.created': async (data) => ({ created: data }),
      'user.updated': async () => 'updated',
    });
    expect(Object.keys(providers).sort()).toEqual(['a new user', 'user.updated']);
    expect(await providers['a new user']!()).toEqual({ created: { n: 1 } });
  });
});

describe('missingConsumerPacts', () => {
  const catalogue = [
    { type: 'user.created', producer: 'users', consumers: ['comments', 'notifications', 'search'] },
    { type: 'user.updated', producer: 'users', consumers: ['comments', 'notifications'] },
    { type: 'recipe.created', producer: 'content', consumers: ['comments'] },
  ];
  const services = new Set(['comments', 'notifications']);

  it('names each existing consumer without a message for an event of the producer', () => {
    // comments wrote user.created only, notifications user.updated only; search is no service (yet).
    expect(missingConsumerPacts(catalogue, 'users', [v3, v4], (name) => services.has(name))).toEqual([
      'notifications: user.created',
      'comments: user.updated',
    ]);
  });

  it('names nothing when every existing consumer has its pact', () => {
    expect(missingConsumerPacts(catalogue.slice(0, 1), 'users', [v3], (name) => name === 'comments')).toEqual([]);
  });
});
