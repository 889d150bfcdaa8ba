// What naming each parameterised statement (a prepared statement, parsed and planned once per connection)
// saves over sending its text every time, on one of the service's heavier statements: a comments page
// with its total (the shape `readPage` sends), on 200 comments of one target. One connection, the same
// statement with varying values, alternating rounds. Run alone: `nice node bench/micro/prepared-statements.mjs`.
import pg from 'pg';

const url = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const database = `micro_prepared_${process.pid}`;
const CALLS = 3000;
const ROUNDS = 3;

const admin = new pg.Client({ connectionString: url });
await admin.connect();
await admin.query(`CREATE DATABASE ${database}`);
const at = new URL(url);
at.pathname = `/${database}`;
const client = new pg.Client({ connectionString: at.href });
try {
  await client.connect();
  await client.query(`
    CREATE TABLE comments (id uuid PRIMARY KEY, target_type text NOT NULL, target_id uuid NOT NULL, author_id uuid NOT NULL,
      content text NOT NULL, created_at timestamptz NOT NULL DEFAULT now(), deleted_at timestamptz);
    CREATE INDEX comments_page_idx ON comments (target_type, target_id, created_at, id) WHERE deleted_at IS NULL;
    CREATE TABLE users (id uuid PRIMARY KEY, username text NOT NULL, avatar_url text);
    INSERT INTO users SELECT gen_random_uuid(), 'user' || n, NULL FROM generate_series(1, 50) n;
    INSERT INTO comments (id, target_type, target_id, author_id, content, created_at)
      SELECT gen_random_uuid(), 'recipe', '00000000-0000-7000-8000-000000000001', (SELECT id FROM users ORDER BY random() LIMIT 1),
             'comment ' || n, now() - n * interval '1 second' FROM generate_series(1, 200) n;
    ANALYZE;`);
  const text = `
    SELECT page.*, total.count AS total FROM
      (SELECT count(*)::int AS count FROM comments WHERE target_type = $1 AND target_id = $2 AND deleted_at IS NULL) AS total
      LEFT JOIN LATERAL (
        SELECT c.id, c.content, c.created_at, u.username, u.avatar_url
          FROM comments c LEFT JOIN users u ON u.id = c.author_id
         WHERE c.target_type = $1 AND c.target_id = $2 AND c.deleted_at IS NULL
         ORDER BY c.created_at, c.id LIMIT $3 OFFSET $4) AS page ON true`;
  const values = (i) => ['recipe', '00000000-0000-7000-8000-000000000001', 20, (i % 10) * 20];

  async function run(prepared) {
    const started = process.hrtime.bigint();
    for (let i = 0; i < CALLS; i += 1) {
      await client.query(prepared ? { name: 'page', text, values: values(i) } : { text, values: values(i) });
    }
    return Number(process.hrtime.bigint() - started) / 1e6 / CALLS;
  }
  await run(true);
  await run(false);
  const results = { prepared: [], unnamed: [] };
  for (let round = 0; round < ROUNDS; round += 1) {
    results.prepared.push(await run(true));
    results.unnamed.push(await run(false));
  }
  for (const [mode, times] of Object.entries(results)) {
    console.log(`${mode.padEnd(8)} ${times.map((ms) => ms.toFixed(3)).join(' ')} ms a call (${CALLS} calls a round)`);
  }
} finally {
  await client.end();
  await admin.query(`DROP DATABASE ${database} WITH (FORCE)`);
  await admin.end();
}
