import {
  type CollectionSnapshot,
  collectionCreated,
  collectionDeleted,
  createEvent,
  newId,
  NOBODY,
} from '@recipes/contracts';
import { createPool, migrate, type Pool } from '@recipes/db';
import { createLogger } from '@recipes/logging';
import { outboxMigrations } from '@recipes/outbox';
import { dispatcher } from '@recipes/messaging';
import { createTestDatabase, type TestDatabase } from '@recipes/testing';
import { type CollectionsServiceStub, stubCollectionsService } from '@recipes/testing/stubs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CollectionDirectory, collectionDirectoryHandlers, collectionDirectoryMigrations } from '../src/index.js';

const log = createLogger({ service: 'test', level: 'silent' });
const context = { producer: 'collections', correlationId: 'c' };
let database: TestDatabase;
let pool: Pool;
let directory: CollectionDirectory;
/** Stands in for the collections service's internal API; the look-ups that reach it are its `requests`. */
let collectionsService: CollectionsServiceStub;
const lookups = () => collectionsService.requests.length;

const snapshot = (name: string): CollectionSnapshot => ({
  id: newId(),
  ownerId: newId(),
  name,
  deleted: false,
  revision: 0,
  createdAt: '2026-11-22T10:00:00.000Z',
});

beforeAll(async () => {
  database = await createTestDatabase();
  await migrate({
    databaseUrl: database.url,
    schema: 'svc',
    sets: [outboxMigrations, collectionDirectoryMigrations],
    logger: log,
  });
  pool = createPool({
    connectionString: database.url,
    schema: 'svc',
    applicationName: 'collection-directory-test',
    logger: log,
  });
  collectionsService = await stubCollectionsService();
  directory = new CollectionDirectory({ pool, collectionsUrl: collectionsService.url });
});

afterAll(async () => {
  await collectionsService.close();
  await pool.end();
  await database.drop();
});

describe('CollectionDirectory', () => {
  it('keeps a deletion even when the creation arrives after it, and applies each event once', async () => {
    const collection = snapshot('Winter light');
    const dispatch = dispatcher(collectionDirectoryHandlers(directory));
    const deletion = createEvent(collectionDeleted, { ...collection, deleted: true, revision: 1 }, context);
    await dispatch(deletion, log);
    await dispatch(createEvent(collectionCreated, collection, context), log);
    await dispatch(deletion, log);
    // A deleted collection keeps no owner or name (docs/api.md §11.2: they may delete their account after).
    expect(await directory.find(collection.id)).toEqual({
      ...collection,
      ownerId: NOBODY,
      name: '',
      deleted: true,
      revision: 1,
    });
    expect(lookups()).toBe(0);
  });

  it('asks the collections service about a collection created a moment ago, once; undefined for none', async () => {
    const fresh = collectionsService.create();
    expect(await directory.find(fresh.id)).toEqual(fresh);
    expect(await directory.find(fresh.id)).toEqual(fresh);
    expect(lookups()).toBe(1);
    expect(await directory.find(newId())).toBeUndefined();
  });

  it('asks the collections service once about a collection it says does not exist, however many ask, until an event brings it', async () => {
    const unknown = snapshot('Not announced');
    const before = lookups();
    await Promise.all(Array.from({ length: 10 }, () => directory.find(unknown.id)));
    for (let n = 0; n < 10; n += 1) expect(await directory.find(unknown.id)).toBeUndefined();
    expect(lookups()).toBe(before + 1);
    await dispatcher(collectionDirectoryHandlers(directory))(createEvent(collectionCreated, unknown, context), log);
    expect(await directory.find(unknown.id)).toEqual(unknown);
    expect(lookups()).toBe(before + 1);
  });
});
