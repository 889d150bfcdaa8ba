import {
  type ContentSnapshot,
  createEvent,
  DomainError,
  newId,
  postCreated,
  recipeCreated,
  recipeDeleted,
  NOBODY,
} from '@recipes/contracts';
import { createPool, migrate, type Pool } from '@recipes/db';
import { createLogger } from '@recipes/logging';
import { outboxMigrations } from '@recipes/outbox';
import { dispatcher } from '@recipes/messaging';
import { createTestDatabase, type TestDatabase } from '@recipes/testing';
import { type ContentServiceStub, stubContentService } from '@recipes/testing/stubs';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ContentDirectory, contentDirectoryHandlers, contentDirectoryMigrations } from '../src/index.js';

const log = createLogger({ service: 'test', level: 'silent' });
const context = { producer: 'content', correlationId: 'c' };
let database: TestDatabase;
let pool: Pool;
let directory: ContentDirectory;

/** Stands in for the content service's internal API; the look-ups that reach it are its `requests`. */
let contentService: ContentServiceStub;
const lookups = () => contentService.requests.length;
const isUnavailable = (error: unknown) => error instanceof DomainError && error.kind === 'unavailable';

const snapshot = (title: string, overrides: Partial<ContentSnapshot> = {}): ContentSnapshot => ({
  id: newId(),
  authorId: newId(),
  title,
  coverImageUrl: null,
  deleted: false,
  revision: 0,
  createdAt: '2026-11-22T10:00:00.000Z',
  ...overrides,
});

beforeAll(async () => {
  database = await createTestDatabase();
  await migrate({
    databaseUrl: database.url,
    schema: 'svc',
    sets: [outboxMigrations, contentDirectoryMigrations],
    logger: log,
  });
  pool = createPool({
    connectionString: database.url,
    schema: 'svc',
    applicationName: 'content-directory-test',
    logger: log,
  });
  contentService = await stubContentService();
  directory = new ContentDirectory({ pool, contentUrl: contentService.url });
});

afterAll(async () => {
  await contentService.close();
  await pool.end();
  await database.drop();
});

beforeEach(() => {
  contentService.requests.length = 0;
});

describe('ContentDirectory', () => {
  it('keeps a deletion even when the creation arrives after it', async () => {
    const recipe = snapshot('Kodachrome 64');
    const dispatch = dispatcher(contentDirectoryHandlers(directory));
    await dispatch(createEvent(recipeDeleted, { ...recipe, deleted: true, revision: 1 }, context), log);
    await dispatch(createEvent(recipeCreated, recipe, context), log);
    // A deleted item keeps no author, title or cover (docs/api.md §11.2: they may delete their account after).
    expect(await directory.find('recipe', recipe.id)).toEqual({
      ...recipe,
      authorId: NOBODY,
      title: '',
      coverImageUrl: null,
      deleted: true,
      revision: 1,
      contentType: 'recipe',
    });
    expect(lookups()).toBe(0);
  });

  it('tells recipes and posts apart', async () => {
    const post = snapshot('A walk in Lisbon', { coverImageUrl: 'https://cdn.example.com/p.jpg' });
    await dispatcher(contentDirectoryHandlers(directory))(createEvent(postCreated, post, context), log);
    expect(await directory.find('post', post.id)).toEqual({ ...post, contentType: 'post' });
    expect(await directory.find('recipe', post.id)).toBeUndefined();
  });

  it('asks the content service about content created a moment ago, once', async () => {
    const fresh = snapshot('Classic Chrome street');
    contentService.publish('recipe', fresh.authorId, fresh);
    expect(await directory.find('recipe', fresh.id)).toEqual({ ...fresh, contentType: 'recipe' });
    expect(await directory.find('recipe', fresh.id)).toEqual({ ...fresh, contentType: 'recipe' });
    expect(lookups()).toBe(1);
  });

  it('asks the content service once about content it says does not exist, however many ask, until an event brings it', async () => {
    const unknown = snapshot('Not announced');
    await Promise.all(Array.from({ length: 10 }, () => directory.find('recipe', unknown.id)));
    for (let n = 0; n < 10; n += 1) expect(await directory.find('recipe', unknown.id)).toBeUndefined();
    expect(lookups()).toBe(1);
    // The same id as a post is another question.
    expect(await directory.find('post', unknown.id)).toBeUndefined();
    expect(lookups()).toBe(2);
    // Only a forged or guessed id is asked about before it exists; whatever was believed, an event wins.
    await dispatcher(contentDirectoryHandlers(directory))(createEvent(recipeCreated, unknown, context), log);
    expect(await directory.find('recipe', unknown.id)).toEqual({ ...unknown, contentType: 'recipe' });
    expect(lookups()).toBe(2);
  });

  it('believes a bounded number of misses, the least recently asked going first', async () => {
    const forgetful = new ContentDirectory({ pool, contentUrl: contentService.url, missesKept: 3, missTtlMs: 60_000 });
    const ids = Array.from({ length: 4 }, () => newId());
    for (const id of [...ids, ...ids.slice(1)]) await forgetful.find('post', id);
    expect(lookups()).toBe(4);
    // The fourth pushed out the first.
    await forgetful.find('post', ids[0]!);
    expect(lookups()).toBe(5);
  });

  it('answers undefined for content that never existed, and "unavailable" when the content service is unreachable', async () => {
    expect(await directory.find('recipe', newId())).toBeUndefined();
    const offline = new ContentDirectory({ pool, contentUrl: 'http://127.0.0.1:1', timeoutMs: 500 });
    await expect(offline.find('recipe', newId())).rejects.toSatisfy(isUnavailable);
  });

  it('says "unavailable", not "no such content", when the content service answers with an error', async () => {
    contentService.setDown(true);
    try {
      await expect(directory.find('post', newId())).rejects.toSatisfy(isUnavailable);
    } finally {
      contentService.setDown(false);
    }
  });
});
