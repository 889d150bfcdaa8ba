import { fileURLToPath } from 'node:url';
import { eventCatalogue, eventsProducedBy } from '@recipes/contracts';
import { catalogueDisagreements, sqlOutboxWrites } from '@recipes/testing/catalogue';
import { describe, expect, it } from 'vitest';

const migrationsDir = fileURLToPath(new URL('../migrations', import.meta.url));

describe('users in the event catalogue', () => {
  it('consumes nothing (server.ts composes no handlers), and its SQL writes no events', () => {
    expect(catalogueDisagreements(eventCatalogue, { service: 'users', handlers: [], migrationsDirs: [migrationsDir] })).toEqual([]);
    expect(sqlOutboxWrites(migrationsDir)).toEqual([]);
  });

  it('is the producer of the user events, which its accounts enqueue', () => {
    expect(eventsProducedBy('users').map((event) => event.type)).toEqual(['user.created', 'user.updated']);
  });
});
