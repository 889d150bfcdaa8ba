import { createEvent, DomainError, newId, userCreated, type UserSnapshot, userUpdated } from '@recipes/contracts';
import { createPool, migrate, type Pool } from '@recipes/db';
import { createLogger } from '@recipes/logging';
import { outboxMigrations } from '@recipes/outbox';
import { dispatcher } from '@recipes/messaging';
import { createTestDatabase, type TestDatabase } from '@recipes/testing';
import { stubUsersService, type UsersServiceStub } from '@recipes/testing/stubs';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { UserDirectory, userDirectoryHandlers, userDirectoryMigrations } from '../src/index.js';

const log = createLogger({ service: 'test', level: 'silent' });
let database: TestDatabase;
let pool: Pool;
let directory: UserDirectory;

/** Stands in for the users service's internal API; the look-ups that reach it are its `requests`. */
let usersService: UsersServiceStub;
const lookups = () => usersService.requests.length;

const isUnavailable = (error: unknown) => error instanceof DomainError && error.kind === 'unavailable';

const user = (username: string, revision = 0): UserSnapshot => ({ id: newId(), username, avatarUrl: null, revision });

beforeAll(async () => {
  database = await createTestDatabase();
  await migrate({
    databaseUrl: database.url,
    schema: 'svc',
    sets: [outboxMigrations, userDirectoryMigrations],
    logger: log,
  });
  pool = createPool({ connectionString: database.url, schema: 'svc', applicationName: 'directory-test', logger: log });

  usersService = await stubUsersService();
  directory = new UserDirectory({ pool, usersUrl: usersService.url });
});

afterAll(async () => {
  await usersService.close();
  await pool.end();
  await database.drop();
});

beforeEach(() => {
  usersService.requests.length = 0;
});

describe('UserDirectory handlers', () => {
  const dispatch = () => dispatcher(userDirectoryHandlers(directory));
  const context = { producer: 'users', correlationId: 'c' };

  it('keeps the newest revision whatever order the events come in, and applies each once', async () => {
    const ada = user('ada_events');
    const renamedAvatar = { ...ada, avatarUrl: 'https://cdn.example.com/ada.png', revision: 1 };
    const update = createEvent(userUpdated, renamedAvatar, context);
    await dispatch()(update, log);
    await dispatch()(createEvent(userCreated, ada, context), log); // older, arrives late
    await dispatch()(update, log); // redelivered

    const { rows } = await pool.query('SELECT username, avatar_url, revision FROM users WHERE id = $1', [ada.id]);
    expect(rows).toEqual([{ username: 'ada_events', avatar_url: 'https://cdn.example.com/ada.png', revision: 1 }]);
    const processed = await pool.query('SELECT count(*)::int AS n FROM processed_events');
    expect(processed.rows[0].n).toBe(2);
  });
});

describe('UserDirectory look-ups', () => {
  it('answers from its own table when it can', async () => {
    const known = user('known_locally');
    await dispatcher(userDirectoryHandlers(directory))(
      createEvent(userCreated, known, { producer: 'users', correlationId: 'c' }),
      log,
    );
    expect(await directory.findById(known.id)).toEqual(known);
    expect(await directory.findByUsername('KNOWN_LOCALLY')).toEqual(known);
    expect(lookups()).toBe(0);
  });

  it('asks the users service about a user registered a moment ago, once', async () => {
    const fresh = user('Fresh_User');
    usersService.register(fresh);
    expect(await directory.findById(fresh.id)).toEqual(fresh);
    expect(await directory.findById(fresh.id)).toEqual(fresh);
    expect(lookups()).toBe(1);
  });

  it('resolves several usernames in any case, ignoring unknown ones, with one call for the misses', async () => {
    const [a, b] = [user('Mention_A'), user('Mention_B')];
    usersService.register(a);
    usersService.register(b);
    const found = await directory.findByUsernames(['mention_a', 'MENTION_B', 'mention_a', 'nobody_at_all']);
    expect([...found.keys()].sort()).toEqual(['mention_a', 'mention_b']);
    expect(found.get('mention_b')).toEqual(b);
    expect(lookups()).toBe(1);
  });

  it('says a user does not exist when neither knows them', async () => {
    expect(await directory.findById(newId())).toBeUndefined();
    expect((await directory.findByUsernames(['ghost_user'])).size).toBe(0);
  });

  it('asks the users service once about an id it says nobody has, however many ask, until an event brings them; a name every time', async () => {
    const unknown = user('not_announced');
    await Promise.all(Array.from({ length: 10 }, () => directory.findById(unknown.id)));
    for (let n = 0; n < 10; n += 1) expect(await directory.findByIds([unknown.id, unknown.id])).toEqual(new Map());
    expect(lookups()).toBe(1);
    await dispatcher(userDirectoryHandlers(directory))(
      createEvent(userCreated, unknown, { producer: 'users', correlationId: 'c' }),
      log,
    );
    expect(await directory.findById(unknown.id)).toEqual(unknown);
    expect(lookups()).toBe(1);
    // A name may be taken a moment after nobody had it: it is asked about each time.
    expect((await directory.findByUsernames(['taken_later'])).size).toBe(0);
    const later = usersService.register('taken_later');
    expect((await directory.findByUsernames(['taken_later'])).get('taken_later')).toEqual(later);
    expect(lookups()).toBe(3);
  });

  it('says the users service is unavailable, not "no such user", when it cannot be reached', async () => {
    const offline = new UserDirectory({ pool, usersUrl: 'http://127.0.0.1:1', timeoutMs: 500 });
    await expect(offline.findById(newId())).rejects.toSatisfy(isUnavailable);
  });

  it('asks the next instance when one cannot be reached (stopped for a rolling restart), each look-up starting at another', async () => {
    const known = usersService.register('two_instances');
    // The first instance refuses every connection; the other answers.
    const spread = new UserDirectory({ pool, usersUrl: `http://127.0.0.1:1,${usersService.url}`, timeoutMs: 500 });
    // Nobody, asked four times (nobody is not remembered): each reaches the instance that answers.
    for (let i = 0; i < 4; i += 1) expect(await spread.findById(newId())).toBeUndefined();
    expect(await spread.findByUsernames(['two_instances'])).toEqual(new Map([['two_instances', known]]));
    expect(lookups()).toBe(5);
    const bothDown = new UserDirectory({ pool, usersUrl: 'http://127.0.0.1:1,http://127.0.0.1:2', timeoutMs: 500 });
    await expect(bothDown.findById(newId())).rejects.toSatisfy(isUnavailable);
  });

  it('says the users service is unavailable, not "no such user", when it answers with an error', async () => {
    usersService.setDown(true);
    try {
      await expect(directory.findById(newId())).rejects.toSatisfy(isUnavailable);
      await expect(directory.findByUsernames(['down_user'])).rejects.toSatisfy(isUnavailable);
    } finally {
      usersService.setDown(false);
    }
  });
});
