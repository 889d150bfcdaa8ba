// The collections part of `npm run bench`: a user with 10,000 saved items, half of them in collections,
// written with SQL into the collections schema once the services have started and migrated it.
import pg from 'pg';

const SAVED_ITEMS = 10_000;
const COLLECTIONS = 10;

async function register(usersUrl) {
  const response = await fetch(`${usersUrl}/api/auth/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ username: 'bench_collector', password: 'bench password' }),
  });
  if (!response.ok) throw new Error(`register: ${response.status} ${await response.text()}`);
  return (await response.json()).user;
}

/** Seeds the collections schema of a started system; undefined when the collections service is not part of it. */
export async function seedCollections({ services, urlOf, databaseUrl }) {
  if (!services.includes('collections')) return undefined;
  const user = await register(urlOf('users'));
  const client = new pg.Client({ connectionString: databaseUrl, options: '-c search_path=collections' });
  await client.connect();
  try {
    await client.query('BEGIN');
    // Item n: its content, its saved item and, for half of them, one of the collections.
    await client.query(
      `CREATE TEMP TABLE seed ON COMMIT DROP AS
       SELECT n, gen_random_uuid() AS content_id, gen_random_uuid() AS saved_item_id,
              CASE WHEN n % 2 = 0 THEN 'recipe' ELSE 'post' END AS content_type
         FROM generate_series(1, $1::int) AS n`,
      [SAVED_ITEMS],
    );
    await client.query(
      `CREATE TEMP TABLE boards ON COMMIT DROP AS SELECT n, gen_random_uuid() AS id FROM generate_series(0, $1::int - 1) AS n`,
      [COLLECTIONS],
    );
    // The content as the content directory would know it from events: recipes and posts by the user.
    await client.query(
      `INSERT INTO content_items (id, content_type, author_id, title, cover_image_url, deleted, revision, created_at)
       SELECT content_id, content_type, $1, 'Recipe ' || n, 'https://cdn.example.com/' || n || '.jpg', false, 0, now() FROM seed`,
      [user.id],
    );
    await client.query(
      `INSERT INTO saved_items (id, user_id, content_type, content_id, created_at)
       SELECT saved_item_id, $1, content_type, content_id, now() - n * interval '1 second' FROM seed`,
      [user.id],
    );
    await client.query(`INSERT INTO collections (id, owner_id, name, description) SELECT id, $1, 'Board ' || n, '' FROM boards`, [user.id]);
    // Half of the items, recipes and posts alike, so the standalone listing skips every other pair.
    await client.query(
      `INSERT INTO collection_items (collection_id, saved_item_id)
       SELECT boards.id, seed.saved_item_id FROM seed JOIN boards ON boards.n = seed.n % $1 WHERE seed.n % 4 < 2`,
      [COLLECTIONS],
    );
    await client.query('COMMIT');
    await client.query('ANALYZE');
  } finally {
    await client.end();
  }
  return { userId: user.id };
}

/** The listings measured for the seeded user. */
export function collectionsScenarios(seeded) {
  if (!seeded) return [];
  const path = `/api/users/${seeded.userId}/saved-items`;
  return [
    { name: 'GET /api/users/{id}/saved-items', service: 'collections', path },
    { name: 'GET /api/users/{id}/saved-items?standalone=true', service: 'collections', path: `${path}?standalone=true` },
  ];
}
