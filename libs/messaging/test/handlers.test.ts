import { createEvent, userCreated, userUpdated } from '@recipes/contracts';
import { createLogger } from '@recipes/logging';
import { describe, expect, it } from 'vitest';
import { dispatcher, on } from '../src/index.js';

const log = createLogger({ service: 'test', level: 'silent' });
const context = { producer: 'users', correlationId: 'c1' };
const user = { id: '0190f5a4-1c2d-7e3f-8a9b-0c1d2e3f4a5b', username: 'ada', avatarUrl: null, revision: 0 };

describe('dispatcher', () => {
  it('routes each event to the handler of its type, with parsed data', async () => {
    const seen: string[] = [];
    const dispatch = dispatcher([
      on(userCreated, async (data) => void seen.push(`created ${data.username}`)),
      on(userUpdated, async (data) => void seen.push(`updated ${data.revision}`)),
    ]);
    await dispatch(createEvent(userUpdated, { ...user, revision: 3 }, context), log);
    await dispatch(createEvent(userCreated, user, context), log);
    expect(seen).toEqual(['updated 3', 'created ada']);
  });

  it('fails an event whose version it does not know, or whose data breaks the contract', async () => {
    const dispatch = dispatcher([on(userCreated, async () => undefined)]);
    const event = createEvent(userCreated, user, context);
    await expect(dispatch({ ...event, version: 2 }, log)).rejects.toThrow(/no handler for user.created version 2/);
    await expect(dispatch({ ...event, data: { id: 'nope' } }, log)).rejects.toThrow();
  });
});
