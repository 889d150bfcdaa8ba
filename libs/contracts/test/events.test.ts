import { describe, expect, it } from 'vitest';
import { createEvent, eventCatalogue, eventEnvelopeSchema, userCreated } from '../src/index.js';

describe('events', () => {
  it('builds a valid envelope with a time-ordered id', () => {
    const event = createEvent(
      userCreated,
      { id: '0190f5a4-1c2d-7e3f-8a9b-0c1d2e3f4a5b', username: 'ada', avatarUrl: null, revision: 0 },
      { producer: 'users', correlationId: 'req-1' },
    );
    expect(eventEnvelopeSchema.parse(event)).toEqual(event);
    expect(event).toMatchObject({ type: 'user.created', version: 1, producer: 'users', correlationId: 'req-1' });
    expect(event.id[14]).toBe('7');
  });

  it('refuses data that breaks the contract', () => {
    expect(() =>
      createEvent(userCreated, { id: 'nope', username: 'ada' } as never, { producer: 'users', correlationId: 'x' }),
    ).toThrow();
  });

  it('lists each event type once', () => {
    const keys = eventCatalogue.map((e) => `${e.type}@${e.version}`);
    expect(new Set(keys).size).toBe(keys.length);
  });
});
