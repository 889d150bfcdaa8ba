// The data of `npm run bench`, written with SQL into each service's schema (through the API a million
// rows would take hours). One measured user, the "viewer", owns OWNED rows of every listing: recipes,
// saved items, collections, notifications, and the comments on one recipe, one post and one collection
// of theirs. Everything else belongs to PEOPLE other users, and `growOthers` adds it in index ranges,
// so the same tables can be measured with 1,000 rows and again with 1,000,000. Counters the services
// keep (saved-item totals, collection and item counts, notification counts, comment counts) are kept
// by the services' own triggers or written in the same statement as the rows.
import pg from 'pg';

export const PEOPLE = 1_000;
export const OWNED = 100;
/** The others' posts that their comments and saved items point at. */
const POSTS = 1_000;
/** Others' collections that hold items: 100,000 of them, each with up to ten of its owner's items. */
const FILLED_COLLECTIONS = 100_000;

async function call(url, { method = 'GET', token, body } = {}) {
  const response = await fetch(url, {
    method,
    headers: {
      ...(token ? { authorization: `Bearer ${token}` } : {}),
      ...(body ? { 'content-type': 'application/json' } : {}),
    },
    body: body ? JSON.stringify(body) : undefined,
  });
  if (!response.ok) throw new Error(`${method} ${url}: ${response.status} ${await response.text()}`);
  return response.json();
}

export const register = (urlOf, username) =>
  call(`${urlOf('gateway')}/api/auth/register`, { method: 'POST', body: { username, password: 'bench password' } });

/** Resolves once `check()` is true, asking every `intervalMs`; fails after `timeoutMs`, naming `what`. */
export async function until(what, check, timeoutMs = 60_000, intervalMs = 100) {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}

const iso = (column) => `to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
/**
 * A row's id from its kind and index: the same on every run, so later statements can refer to it, and
 * rising with the index, so a million rows go into the primary key's last pages rather than all over it.
 */
const idOf = (kind, index) =>
  `(lpad(to_hex(${index}), 8, '0') || '-0000-4000-8000-' || substr(md5('${kind}'), 1, 12))::uuid`;
/** Person k (0 … PEOPLE - 1) of `bench_people`. */
const person = (alias, index) => `JOIN bench_people ${alias} ON ${alias}.k = (${index}) % ${PEOPLE}`;

/**
 * PEOPLE users in the users schema, announced with `user.created` in its outbox as registration does, so
 * the relay and every service's consumer put them into the read models; waits until all have them.
 */
async function seedPeople(db, passwordHash) {
  await db.users.query(
    `INSERT INTO users.users (id, username, password_hash, avatar_url)
     SELECT ${idOf('u', 'k')}, 'bench_user_' || k, $1, 'https://cdn.example.com/avatars/' || k || '.png'
       FROM generate_series(0, ${PEOPLE - 1}) AS k`,
    [passwordHash],
  );
  await db.users.query(
    `INSERT INTO users.outbox (id, type, payload)
     SELECT event_id, 'user.created', jsonb_build_object(
              'id', event_id, 'type', 'user.created', 'version', 1, 'occurredAt', ${iso('now()')},
              'producer', 'users', 'correlationId', 'bench-seed',
              'data', jsonb_build_object('id', u.id, 'username', u.username, 'avatarUrl', u.avatar_url, 'revision', 0))
       FROM (SELECT gen_random_uuid() AS event_id, * FROM users.users WHERE username LIKE 'bench\\_user\\_%') AS u`,
  );
  await db.public.query(`CREATE TABLE bench_people (k int PRIMARY KEY, id uuid NOT NULL)`);
  await db.public.query(
    `INSERT INTO bench_people SELECT k, ${idOf('u', 'k')} FROM generate_series(0, ${PEOPLE - 1}) AS k`,
  );
  for (const schema of ['content', 'comments', 'collections', 'notifications']) {
    await until(`${schema} to know the ${PEOPLE} users`, async () => {
      const { rows } = await db.public.query(
        `SELECT count(*)::int AS n FROM ${schema}.users u JOIN bench_people p ON p.id = u.id`,
      );
      return rows[0].n === PEOPLE;
    });
  }
}

/** The others' posts, and what the comments and collections services know of them. */
async function seedPosts(db) {
  await db.content.query(
    `INSERT INTO content.posts (id, author_id, title, cover_image_url, created_at)
     SELECT ${idOf('p', 'n')}, a.id, 'Post ' || n, 'https://cdn.example.com/p/' || n || '.jpg', now() - interval '2 days'
       FROM generate_series(0, ${POSTS - 1}) AS n ${person('a', 'n')}`,
  );
  for (const schema of ['comments', 'collections']) {
    await db[schema].query(
      `INSERT INTO ${schema}.content_items (id, content_type, author_id, title, cover_image_url, deleted, revision, created_at)
       SELECT id, 'post', author_id, title, cover_image_url, false, 0, created_at FROM content.posts WHERE title LIKE 'Post %'`,
    );
  }
}

/**
 * The viewer's OWNED rows of each listing, beside the recipe, post and collection made through the API.
 * The viewer favorites every other recipe of theirs, so a listing with their token has some to show.
 */
async function seedOwned(db, { viewerId, recipeId, postId, collectionId }) {
  const viewer = [viewerId];
  await db.content.query(
    `INSERT INTO content.recipes (id, author_id, title, description, camera_model, film_simulation, cover_image_url, favorite_count, created_at)
     SELECT gen_random_uuid(), $1, 'My recipe ' || n, 'Grain -1, highlights +1, shadows -2', 'X-T5', 'Classic Chrome',
            'https://cdn.example.com/mine/' || n || '.jpg', (n % 2 = 0)::int, now() - n * interval '1 minute'
       FROM generate_series(1, ${OWNED - 1}) AS n`,
    viewer,
  );
  await db.content.query(
    `INSERT INTO content.recipe_favorites (recipe_id, user_id) SELECT id, $1 FROM content.recipes WHERE author_id = $1 AND favorite_count = 1`,
    viewer,
  );
  // Comments on each of the viewer's three targets, oldest first as they are listed.
  await db.comments.query(
    `INSERT INTO comments.comments (id, target_type, target_id, author_id, content, created_at)
     SELECT gen_random_uuid(), t.type, t.id, a.id, 'Comment ' || n || ': lovely tones, less grain next time?',
            date_trunc('milliseconds', now()) - (${OWNED} - n) * interval '1 second'
       FROM generate_series(1, ${OWNED}) AS n ${person('a', 'n')}
      CROSS JOIN (VALUES ('recipe', $1::uuid), ('post', $2::uuid), ('collection', $3::uuid)) AS t(type, id)`,
    [recipeId, postId, collectionId],
  );
  await db.content.query(`UPDATE content.recipes SET comment_count = comment_count + ${OWNED} WHERE id = $1`, [
    recipeId,
  ]);
  await db.collections.query(
    `INSERT INTO collections.collections (id, owner_id, name, description, created_at)
     SELECT gen_random_uuid(), $1, 'My board ' || n, '', now() - n * interval '1 minute' FROM generate_series(1, ${OWNED - 1}) AS n`,
    viewer,
  );
  // The viewer saves each of their recipes, and puts half of them into the collection made through the
  // API, so the standalone listing has some to show too.
  await db.collections.query(
    `INSERT INTO collections.content_items (id, content_type, author_id, title, cover_image_url, deleted, revision, created_at)
     SELECT id, 'recipe', author_id, title, cover_image_url, false, 0, created_at FROM content.recipes WHERE author_id = $1
     ON CONFLICT (id) DO NOTHING`,
    viewer,
  );
  await db.collections.query(
    `INSERT INTO collections.saved_items (id, user_id, content_type, content_id, created_at)
     SELECT gen_random_uuid(), $1, 'recipe', id, now() - row_number() OVER (ORDER BY created_at DESC) * interval '1 second'
       FROM content.recipes WHERE author_id = $1`,
    viewer,
  );
  await db.collections.query(
    `INSERT INTO collections.collection_items (collection_id, saved_item_id, added_at)
     SELECT $2, id, created_at FROM collections.saved_items WHERE user_id = $1 ORDER BY created_at DESC LIMIT ${OWNED / 2}`,
    [viewerId, collectionId],
  );
  await insertNotifications(
    db.notifications,
    'viewer',
    `generate_series(1, ${OWNED}) AS i JOIN (SELECT $1::uuid AS id) AS r ON true`,
    viewer,
  );
}

/**
 * Notifications of the five kinds, from people, with their recipients' counts in the same statement; each
 * takes the next place in its recipient's sequence, older ones first, as the service numbers them.
 */
function insertNotifications(db, kind, rows, values) {
  return db.query(
    `WITH added AS (
       INSERT INTO notifications.notifications
              (id, recipient_id, type, actor_id, content_type, content_id, comment_id, created_at, source_event_id, sequence)
       SELECT ${idOf(`${kind}n`, 'i')}, r.id, kind.type, a.id, kind.content_type, ${idOf('p', `i % ${POSTS}`)},
              CASE WHEN kind.type LIKE 'mention\\_%' THEN gen_random_uuid() END,
              date_trunc('milliseconds', now()) - i * interval '1 second', ${idOf(`${kind}e`, 'i')},
              coalesce((SELECT last_sequence FROM notifications.notification_counts WHERE recipient_id = r.id), 0)
                + row_number() OVER (PARTITION BY r.id ORDER BY i DESC)
         FROM ${rows} ${person('a', 'i + 1')}
         JOIN (VALUES (0, 'mention_recipe_comment', 'recipe'), (1, 'mention_collection_comment', 'collection'),
                      (2, 'mention_post_comment', 'post'), (3, 'tag_recipe', 'recipe'), (4, 'tag_post', 'post'))
              AS kind(k, type, content_type) ON kind.k = i % 5
       RETURNING recipient_id, sequence)
     INSERT INTO notifications.notification_counts AS counts (recipient_id, total, unread, last_sequence)
     SELECT recipient_id, count(*), count(*), max(sequence) FROM added GROUP BY recipient_id
     ON CONFLICT (recipient_id) DO UPDATE
       SET total = counts.total + EXCLUDED.total, unread = counts.unread + EXCLUDED.unread, last_sequence = EXCLUDED.last_sequence`,
    values,
  );
}

/**
 * The others' rows with index from ≤ i < to of each listing's table, one statement per table; rows i
 * of different tables are independent, so the tables fill in parallel, one connection each. Collections and saved
 * items come before the collection items that refer to them.
 */
export async function growOthers(pools, from, to) {
  if (to <= from) return;
  const range = `generate_series(${from}, ${to - 1}) AS i`;
  const run = (schema, sql) => pools[schema].query(sql);
  await Promise.all([
    run(
      'content',
      `INSERT INTO content.recipes (id, author_id, title, description, camera_model, film_simulation, cover_image_url, created_at)
       SELECT ${idOf('r', 'i')}, a.id, 'Recipe ' || i, 'Grain -1, highlights +1, shadows -2', 'X-T5', 'Classic Chrome',
              'https://cdn.example.com/r/' || i || '.jpg', now() - interval '1 day' - i * interval '1 second'
         FROM ${range} ${person('a', 'i')}`,
    ),
    // On the others' posts, which keep no comment count.
    run(
      'comments',
      `INSERT INTO comments.comments (id, target_type, target_id, author_id, content, created_at)
       SELECT ${idOf('c', 'i')}, 'post', ${idOf('p', `i % ${POSTS}`)}, a.id, 'Comment ' || i || ': nice grain',
              date_trunc('milliseconds', now()) - interval '1 day' - i * interval '1 second'
         FROM ${range} ${person('a', 'i + 7')}`,
    ),
    insertNotifications(pools.notifications, 'others', `${range} ${person('r', 'i')}`, []),
    (async () => {
      await Promise.all([
        run(
          'collections',
          `INSERT INTO collections.collections (id, owner_id, name, description, created_at)
           SELECT ${idOf('k', 'i')}, a.id, 'Board ' || i, '', now() - interval '1 day' - i * interval '1 second'
             FROM ${range} ${person('a', 'i')}`,
        ),
        // Person i % PEOPLE saves post i / PEOPLE: every pair once.
        run(
          'collections',
          `INSERT INTO collections.saved_items (id, user_id, content_type, content_id, created_at)
           SELECT ${idOf('s', 'i')}, a.id, 'post', ${idOf('p', `i / ${PEOPLE}`)}, now() - interval '1 day' - i * interval '1 second'
             FROM ${range} ${person('a', 'i')}`,
        ),
      ]);
      // Item i: collection j = i % FILLED_COLLECTIONS (its owner is person j % PEOPLE) gets that owner's
      // saved item number i / FILLED_COLLECTIONS, so both exist once the tables have grown to i.
      await run(
        'collections',
        `INSERT INTO collections.collection_items (collection_id, saved_item_id, added_at)
         SELECT ${idOf('k', `i % ${FILLED_COLLECTIONS}`)},
                ${idOf('s', `(i / ${FILLED_COLLECTIONS}) * ${PEOPLE} + (i % ${FILLED_COLLECTIONS}) % ${PEOPLE}`)},
                now() - interval '1 day' - i * interval '1 second'
           FROM ${range}`,
      );
    })(),
  ]);
  // As autovacuum would have left tables that grew over time (visibility maps set for index-only scans,
  // statistics current), and so it does not start on them in the middle of a measurement.
  await run('public', 'VACUUM (ANALYZE)');
}

/**
 * Registers the viewer (and a friend to mention) through the gateway, makes their recipe, post and
 * collection through it too, then writes the people and the viewer's rows. Returns the ids and tokens.
 */
export async function seedFixture({ urlOf }, pools) {
  const pool = pools.public;
  const [viewer, friend] = [await register(urlOf, 'bench_viewer'), await register(urlOf, 'bench_friend')];
  const api = `${urlOf('gateway')}/api`;
  const token = viewer.token;
  const { recipe } = await call(`${api}/recipes`, {
    method: 'POST',
    token,
    body: {
      title: 'Bench recipe',
      cameraModel: 'X-T5',
      filmSimulation: 'Velvia',
      imageUrls: ['https://cdn.example.com/bench.jpg'],
    },
  });
  const { post } = await call(`${api}/posts`, { method: 'POST', token, body: { title: 'Bench post' } });
  const { collection } = await call(`${api}/collections`, { method: 'POST', token, body: { name: 'Bench board' } });
  // The comments and collections services learn of them from events: wait, so nothing answers 404.
  await until('the recipe, post and collection to reach their readers', async () => {
    const { rows } = await pool.query(
      `SELECT (SELECT count(*) FROM comments.content_items WHERE id IN ($1, $2))
            + (SELECT count(*) FROM comments.known_collections WHERE id = $3)
            + (SELECT count(*) FROM collections.content_items WHERE id = $1) AS n`,
      [recipe.id, post.id, collection.id],
    );
    return Number(rows[0].n) === 4;
  });
  // A comment of the viewer's on their recipe with three replies of theirs (docs/api.md §11.4), for the
  // replies listing: nobody is told of a comment on their own recipe.
  const { comment } = await call(`${api}/recipes/${recipe.id}/comments`, {
    method: 'POST',
    token,
    body: { content: 'Bench thread' },
  });
  for (const n of [1, 2, 3])
    await call(`${api}/recipes/${recipe.id}/comments`, {
      method: 'POST',
      token,
      body: { content: `Bench reply ${n}`, parentId: comment.id },
    });
  const { rows } = await pool.query('SELECT password_hash FROM users.users WHERE id = $1', [viewer.user.id]);
  await seedPeople(pools, rows[0].password_hash);
  await seedPosts(pools);
  await seedOwned(pools, {
    viewerId: viewer.user.id,
    recipeId: recipe.id,
    postId: post.id,
    collectionId: collection.id,
  });
  // What an inbox page reads by ids (docs/api.md §4): 20 of the viewer's recipes and 20 of the others' posts, in an
  // order of neither table's.
  const idsOf = async (query, values) =>
    (await pools.content.query(`${query} ORDER BY md5(id::text) LIMIT 20`, values)).rows.map((row) => row.id);
  const inbox = {
    recipeIds: await idsOf('SELECT id FROM content.recipes WHERE author_id = $1', [viewer.user.id]),
    postIds: await idsOf(`SELECT id FROM content.posts WHERE title LIKE 'Post %'`),
  };
  return {
    viewer,
    friend,
    recipeId: recipe.id,
    postId: post.id,
    collectionId: collection.id,
    commentId: comment.id,
    inbox,
  };
}

/** Rows in the biggest of the listings' tables, to print beside the scale figures. */
export async function tableSizes({ public: pool }) {
  const tables = [
    'content.recipes',
    'comments.comments',
    'collections.collections',
    'collections.saved_items',
    'collections.collection_items',
    'notifications.notifications',
  ];
  const { rows } = await pool.query(
    `SELECT ${tables.map((t, i) => `(SELECT count(*) FROM ${t})::int AS t${i}`).join(', ')}`,
  );
  return Object.fromEntries(tables.map((t, i) => [t, rows[0][`t${i}`]]));
}

/**
 * A pool per schema, its search path set as the service sets it, so the triggers find their functions;
 * `public` holds the bench's own table of people. `end()` closes them all.
 */
export function openPools(databaseUrl) {
  const schemas = ['public', 'users', 'content', 'comments', 'collections', 'notifications'];
  const pools = Object.fromEntries(
    schemas.map((schema) => {
      const pool = new pg.Pool({ connectionString: databaseUrl, max: 2, options: `-c search_path=${schema},public` });
      // An idle connection that breaks is replaced on the next query; unheard, its error would end the run.
      pool.on('error', (error) => console.warn(`bench: idle ${schema} connection lost: ${error.message}`));
      return [schema, pool];
    }),
  );
  return { ...pools, end: () => Promise.all(schemas.map((schema) => pools[schema].end())) };
}
