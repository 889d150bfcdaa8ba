import { randomUUID } from 'node:crypto';
import { eventually } from '@recipes/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StartedSystem } from '../scripts/system.mjs';
import { withDatabase } from './support/database.js';
import { type JsonCall, jsonClient } from './support/http.js';
import { startTestSystem } from './support/system.js';
import { type Account, create, register } from './support/world.js';

/**
 * Idempotency-Key through the gateway, every service its own process: a retried POST acts once and gets
 * the first response again, however the retries come, down to the notification a mention makes.
 */
let system: StartedSystem;
let call: JsonCall;
let ada: Account;
let bob: Account;

beforeAll(async () => {
  system = await startTestSystem({
    name: 'recipes_idempotency',
    portOffset: 3900,
    env: { RATE_LIMIT_MAX: '100000', COMMENT_LIMIT_PER_MINUTE: '100000' },
  });
  call = jsonClient(`${system.urlOf('gateway')}/api`);
  [ada, bob] = await Promise.all([register(call, 'idem_ada'), register(call, 'idem_bob')]);
}, 90_000);
afterAll(() => system?.stop());

const recipeDraft = { title: 'Classic Chrome street', cameraModel: 'X100V', filmSimulation: 'Classic Chrome' };

/** A POST with a key, answered as sent: status, the replay mark and the exact body. */
async function keyed(path: string, body: unknown, account: Account, key: string) {
  const response = await call('POST', path, body, account.token, { 'idempotency-key': key });
  return {
    status: response.status,
    replayed: response.headers.get('idempotent-replayed'),
    text: response.raw.text,
    body: response.body as any,
  };
}

async function count(sql: string, values: unknown[]): Promise<number> {
  return withDatabase(system.databaseUrl, async (db) => (await db.query<{ n: number }>(sql, values)).rows[0]!.n);
}

/** Bob's notifications about `commentId`, once one has come for `sentinelId`, a comment made after it. */
async function notificationsAbout(commentId: string, sentinelId: string): Promise<number> {
  const list = async () =>
    (await call<{ data: { commentId?: string }[] }>('GET', '/notifications?limit=100', undefined, bob.token)).body.data;
  // Events leave the outbox oldest first: once the later comment's notification is here, a second one of
  // the earlier comment would be too.
  await eventually(async () => ((await list()).some((n) => n.commentId === sentinelId) ? true : undefined), 10_000);
  return (await list()).filter((n) => n.commentId === commentId).length;
}

async function mentionBob(recipeId: string): Promise<string> {
  return (
    await create<{ id: string }>(
      call,
      `/recipes/${recipeId}/comments`,
      { content: `And now, @${bob.user.username}?` },
      ada,
      'comment',
    )
  ).id;
}

describe('a comment posted with an Idempotency-Key', () => {
  it('posted again after its 201 is one comment and one notification; the retry gets the first response, marked', async () => {
    const recipe = await create(call, '/recipes', recipeDraft, ada, 'recipe');
    const key = `comment-${randomUUID()}`;
    const body = { content: `What do you think, @${bob.user.username}?` };
    const first = await keyed(`/recipes/${recipe.id}/comments`, body, ada, key);
    expect(first.status).toBe(201);
    expect(first.replayed).toBeNull();

    const retry = await keyed(`/recipes/${recipe.id}/comments`, body, ada, key);
    expect(retry).toEqual({ ...first, replayed: 'true' });

    expect(await count('SELECT count(*)::int AS n FROM comments.comments WHERE target_id = $1', [recipe.id])).toBe(1);
    expect(await notificationsAbout(first.body.comment.id, await mentionBob(recipe.id))).toBe(1);
  });

  it('posted eight times at once is one comment and one notification; the others are 409 or the same response', async () => {
    const recipe = await create(call, '/recipes', recipeDraft, ada, 'recipe');
    const key = `burst-${randomUUID()}`;
    const body = { content: `All at once, @${bob.user.username}` };
    const answers = await Promise.all(
      Array.from({ length: 8 }, () => keyed(`/recipes/${recipe.id}/comments`, body, ada, key)),
    );

    const firsts = answers.filter((answer) => answer.status === 201 && answer.replayed === null);
    expect(firsts).toHaveLength(1);
    for (const answer of answers.filter((each) => each !== firsts[0])) {
      if (answer.status === 409) expect(answer.body).toMatchObject({ code: 'CONFLICT' });
      else expect(answer).toEqual({ ...firsts[0], replayed: 'true' });
    }
    expect(await count('SELECT count(*)::int AS n FROM comments.comments WHERE target_id = $1', [recipe.id])).toBe(1);
    expect(await notificationsAbout(firsts[0]!.body.comment.id, await mentionBob(recipe.id))).toBe(1);
  });

  it('is 422 with another body, 400 with a malformed key, and the replay header is exposed to browsers', async () => {
    const recipe = await create(call, '/recipes', recipeDraft, ada, 'recipe');
    const key = `reuse-${randomUUID()}`;
    expect((await keyed(`/recipes/${recipe.id}/comments`, { content: 'One' }, ada, key)).status).toBe(201);
    const reused = await keyed(`/recipes/${recipe.id}/comments`, { content: 'Two' }, ada, key);
    expect(reused.status).toBe(422);
    expect(reused.body).toMatchObject({ code: 'IDEMPOTENCY_KEY_REUSED' });
    const malformed = await keyed(`/recipes/${recipe.id}/comments`, { content: 'Three' }, ada, 'two words');
    expect(malformed.status).toBe(400);
    expect(malformed.body).toMatchObject({ code: 'VALIDATION_ERROR', errors: [{ path: 'idempotency-key' }] });

    const response = await call('POST', `/recipes/${recipe.id}/comments`, { content: 'One' }, ada.token, {
      'idempotency-key': key,
      origin: 'https://app.example.com',
    });
    expect(response.headers.get('idempotent-replayed')).toBe('true');
    expect(response.headers.get('access-control-expose-headers')).toMatch(/idempotent-replayed/);
  });
});

describe('every other POST that creates', () => {
  /** POSTs twice with one key: the second is the first response again, and there is one of the thing. */
  async function replays(path: string, body: unknown, counted: { sql: string; values: unknown[] }, status = 201) {
    const key = `create-${randomUUID()}`;
    const first = await keyed(path, body, ada, key);
    expect(first.status, first.text).toBe(status);
    const retry = await keyed(path, body, ada, key);
    expect(retry).toEqual({ ...first, replayed: 'true' });
    expect(await count(counted.sql, counted.values)).toBe(1);
    return first.body;
  }

  it('replays recipes, posts, collections, saved items and collection items, each created once', async () => {
    const title = `Replayed ${randomUUID()}`;
    const { recipe } = await replays(
      '/recipes',
      { ...recipeDraft, title },
      { sql: 'SELECT count(*)::int AS n FROM content.recipes WHERE title = $1', values: [title] },
    );
    const { post } = await replays(
      '/posts',
      { title },
      { sql: 'SELECT count(*)::int AS n FROM content.posts WHERE title = $1', values: [title] },
    );
    const { collection } = await replays(
      '/collections',
      { name: title },
      {
        sql: 'SELECT count(*)::int AS n FROM collections.collections WHERE name = $1',
        values: [title],
      },
    );
    // Saving again without a key would be 200 with the same item; with one, it is the first 201 again.
    const { savedItem } = await replays(
      '/saved-items',
      { contentType: 'post', contentId: post.id },
      {
        sql: 'SELECT count(*)::int AS n FROM collections.saved_items WHERE content_id = $1',
        values: [post.id],
      },
    );
    // Adding again without a key would be 409 (already in the collection); with one, the first 201 again.
    await replays(
      `/collections/${collection.id}/items`,
      { savedItemId: savedItem.id },
      {
        sql: 'SELECT count(*)::int AS n FROM collections.collection_items WHERE collection_id = $1',
        values: [collection.id],
      },
    );
    expect(recipe).toMatchObject({ title });
  });
});

describe('a POST with an Idempotency-Key whose response cannot be kept after its effect', () => {
  /**
   * The trigger function that refuses a kept response (see `refusingToKeep`); made for these tests, dropped after them.
   */
  const REFUSE = 'public.refuse_to_keep';

  beforeAll(() =>
    withDatabase(system.databaseUrl, (db) =>
      db.query(`CREATE FUNCTION ${REFUSE}() RETURNS trigger LANGUAGE plpgsql AS $$
                BEGIN RAISE EXCEPTION 'the response to key % cannot be kept', NEW.key; END $$`),
    ),
  );
  afterAll(() => withDatabase(system.databaseUrl, (db) => db.query(`DROP FUNCTION IF EXISTS ${REFUSE}()`)));

  /**
   * Sends while the service whose schema is `schema` cannot keep a response for `key`, as if it failed or
   * crashed between the handler's effect and the keeping: a trigger refuses the row in its idempotency_keys.
   */
  async function refusingToKeep<T>(schema: string, key: string, send: () => Promise<T>): Promise<T> {
    const table = `${schema}.idempotency_keys`;
    await withDatabase(system.databaseUrl, (db) =>
      db.query(
        `CREATE TRIGGER refuse_to_keep BEFORE INSERT ON ${table} FOR EACH ROW WHEN (NEW.key = '${key}') EXECUTE FUNCTION ${REFUSE}()`,
      ),
    );
    try {
      return await send();
    } finally {
      await withDatabase(system.databaseUrl, (db) => db.query(`DROP TRIGGER refuse_to_keep ON ${table}`));
    }
  }

  /** A request of one route, made afresh, with what its effect leaves behind. */
  interface Attempt {
    path: string;
    body: unknown;
    /** Each thing the effect writes in its own service, counted: all 0 before it, all 1 after it. */
    effect(): Promise<Record<string, number>>;
    /** What its events become in another service (a read model's row, a notification); none without events. */
    echoes?(): Promise<number>;
  }

  /**
   * Each idempotent route, as the API document names it: the schema of the service that keeps its responses, and a
   * fresh attempt.
   */
  const routes: Record<string, { schema: 'content' | 'collections' | 'comments'; attempt(): Promise<Attempt> }> = {};

  const countRows = (sql: string, value: unknown) => count(`SELECT count(*)::int AS n FROM ${sql}`, [value]);

  for (const [kind, plural, draft] of [
    ['recipe', 'recipes', () => recipeDraft],
    ['post', 'posts', () => ({ title: 'Commented on' })],
    ['collection', 'collections', () => ({ name: 'Commented on' })],
  ] as const) {
    routes[`/api/${plural}/{id}/comments`] = {
      schema: 'comments',
      async attempt() {
        const target = await create(call, `/${plural}`, draft(), ada, kind);
        return {
          path: `/${plural}/${target.id}/comments`,
          body: { content: `Kept, @${bob.user.username}?` },
          effect: async () => ({ comments: await countRows('comments.comments WHERE target_id = $1', target.id) }),
          // Bob's mention: a notification about the target.
          echoes: () => countRows('notifications.notifications WHERE content_id = $1', target.id),
        };
      },
    };
  }

  routes['/api/recipes'] = {
    schema: 'content',
    async attempt() {
      const title = `Unkept ${randomUUID()}`;
      return {
        path: '/recipes',
        body: { ...recipeDraft, title },
        effect: async () => ({ recipes: await countRows('content.recipes WHERE title = $1', title) }),
        echoes: () => countRows('comments.content_items WHERE title = $1', title),
      };
    },
  };

  routes['/api/posts'] = {
    schema: 'content',
    async attempt() {
      const title = `Unkept ${randomUUID()}`;
      return {
        path: '/posts',
        body: { title },
        effect: async () => ({ posts: await countRows('content.posts WHERE title = $1', title) }),
        echoes: () => countRows('comments.content_items WHERE title = $1', title),
      };
    },
  };

  routes['/api/collections'] = {
    schema: 'collections',
    async attempt() {
      const name = `Unkept ${randomUUID()}`;
      return {
        path: '/collections',
        body: { name },
        effect: async () => ({ collections: await countRows('collections.collections WHERE name = $1', name) }),
        echoes: () => countRows('comments.known_collections WHERE name = $1', name),
      };
    },
  };

  routes['/api/saved-items'] = {
    schema: 'collections',
    async attempt() {
      const post = await create(call, '/posts', { title: 'To save' }, ada, 'post');
      return {
        path: '/saved-items',
        body: { contentType: 'post', contentId: post.id },
        effect: async () => ({ savedItems: await countRows('collections.saved_items WHERE content_id = $1', post.id) }),
      };
    },
  };

  routes['/api/collections/{id}/items'] = {
    schema: 'collections',
    async attempt() {
      const post = await create(call, '/posts', { title: 'To collect' }, ada, 'post');
      const savedItem = await create(
        call,
        '/saved-items',
        { contentType: 'post', contentId: post.id },
        ada,
        'savedItem',
      );
      const collection = await create(call, '/collections', { name: 'Collecting' }, ada, 'collection');
      return {
        path: `/collections/${collection.id}/items`,
        body: { savedItemId: savedItem.id },
        effect: async () => ({
          items: await countRows('collections.collection_items WHERE collection_id = $1', collection.id),
          itemCount: await count('SELECT item_count AS n FROM collections.collections WHERE id = $1', [collection.id]),
        }),
      };
    },
  };

  const all = (counts: Record<string, number>, n: number) =>
    Object.fromEntries(Object.keys(counts).map((name) => [name, n]));

  it('covers every POST that takes the header', async () => {
    const document = (await (await fetch(`${system.urlOf('gateway')}/docs/json`)).json()) as {
      paths: Record<string, Record<string, { parameters?: { in: string; name: string }[] }>>;
    };
    const takingTheHeader = Object.entries(document.paths)
      .filter(([, operations]) =>
        operations.post?.parameters?.some(
          (parameter) => parameter.in === 'header' && parameter.name === 'idempotency-key',
        ),
      )
      .map(([path]) => path);
    expect(takingTheHeader.sort()).toEqual(Object.keys(routes).sort());
  });

  it.each(Object.keys(routes))(
    '%s: nothing of the effect remains, events included, and a retry with the key acts once',
    async (route) => {
      const { schema, attempt } = routes[route]!;
      const { path, body, effect, echoes } = await attempt();
      const key = `unkept-${randomUUID()}`;
      const before = await effect();
      expect(before).toEqual(all(before, 0));

      const failed = await refusingToKeep(schema, key, () => keyed(path, body, ada, key));
      expect(failed.status, failed.text).toBe(500);
      expect(await effect()).toEqual(before);

      const retry = await keyed(path, body, ada, key);
      expect(retry.status, retry.text).toBe(201);
      expect(retry.replayed).toBeNull();
      expect(await effect()).toEqual(all(before, 1));
      expect(await keyed(path, body, ada, key)).toEqual({ ...retry, replayed: 'true' });

      if (echoes) {
        // Events leave the outbox oldest first: once the retry's has arrived, an event of the first attempt would have
        // too.
        await eventually(async () => ((await echoes()) > 0 ? true : undefined), 10_000);
        expect(await echoes()).toBe(1);
      }
    },
  );
});

describe("the gateway's API document", () => {
  it('shows the optional header and the 409 and 422 answers on every POST that creates', async () => {
    const document = (await (await fetch(`${system.urlOf('gateway')}/docs/json`)).json()) as {
      paths: Record<
        string,
        Record<
          string,
          { parameters?: { in: string; name: string; required?: boolean }[]; responses: Record<string, unknown> }
        >
      >;
    };
    const creating = [
      '/api/recipes',
      '/api/posts',
      '/api/recipes/{id}/comments',
      '/api/collections/{id}/comments',
      '/api/posts/{id}/comments',
      '/api/collections',
      '/api/saved-items',
      '/api/collections/{id}/items',
    ];
    for (const path of creating) {
      const operation = document.paths[path]?.post;
      expect(operation, path).toBeDefined();
      expect(operation!.parameters, path).toContainEqual(
        expect.objectContaining({ in: 'header', name: 'idempotency-key', required: false }),
      );
      expect(Object.keys(operation!.responses), path).toEqual(expect.arrayContaining(['409', '422']));
    }
  });
});
