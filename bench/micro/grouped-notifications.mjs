// What grouped notifications (docs/api.md §10.5) and the unread filter (docs/api.md §10.2) cost the paths that do not
// use them: migration 009 adds a generated `group_key` column, its index and the unread listing index,
// which every stored notification now writes. Times the mention's write (the service's own storing
// statements, `insertNotification`, in a transaction) and the flat list's page 1 (`findPage`), with
// migration 009's schema and without it (its Down run), alternating rounds on one database of 100,000
// notifications of one recipient. Run alone: `nice node bench/micro/grouped-notifications.mjs`.
import { readFileSync } from 'node:fs';
import { createPool, migrate, withTransaction } from '@recipes/db';
import { migrationSetsOf } from '@recipes/runtime';
import pg from 'pg';
import { findPage, insertNotification } from '../../services/notifications/dist/repository/notifications.js';
import { notificationsService } from '../../services/notifications/dist/service.js';

const url = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const database = `micro_grouped_${process.pid}`;
const ROWS = 100_000;
const WRITES = 1_000;
const READS = 2_000;
const ROUNDS = 4;
const silent = { info: () => undefined, warn: () => undefined, error: () => undefined };

const [up, down] = readFileSync(
  new URL('../../services/notifications/migrations/009_filters_and_groups.sql', import.meta.url),
  'utf8',
).split('-- Down Migration');

const admin = new pg.Client({ connectionString: url });
await admin.connect();
await admin.query(`CREATE DATABASE ${database}`);
const at = new URL(url);
at.pathname = `/${database}`;
let pool;
try {
  await migrate({
    databaseUrl: at.href,
    schema: 'notifications',
    sets: migrationSetsOf(notificationsService),
    logger: silent,
  });
  pool = createPool({
    connectionString: at.href,
    schema: 'notifications',
    max: 1,
    applicationName: 'micro-grouped',
    logger: silent,
  });
  const recipient = '0190a000-0000-7000-8000-0000000000aa';
  const actor = '0190a000-0000-7000-8000-0000000000bb';
  await pool.query(
    `INSERT INTO notifications (id, recipient_id, type, actor_id, content_type, content_id, comment_id, created_at, source_event_id, sequence)
     SELECT gen_random_uuid(), $1, 'mention_recipe_comment', $2, 'recipe', gen_random_uuid(), gen_random_uuid(),
            timestamptz '2026-01-01' + i * interval '1 second', gen_random_uuid(), i
       FROM generate_series(1, $3::int) AS i`,
    [recipient, actor, ROWS],
  );
  await pool.query(
    'INSERT INTO notification_counts (recipient_id, total, unread, last_sequence) VALUES ($1, $2::int, $2::int, $2::int)',
    [recipient, ROWS],
  );
  await pool.query('VACUUM ANALYZE notifications');

  let written = 0;
  async function writes() {
    const started = process.hrtime.bigint();
    for (let i = 0; i < WRITES; i += 1) {
      written += 1;
      const n = {
        recipientId: recipient,
        type: 'mention_recipe_comment',
        actorId: actor,
        contentType: 'recipe',
        contentId: crypto.randomUUID(),
        commentId: crypto.randomUUID(),
        createdAt: new Date(Date.parse('2027-01-01') + written).toISOString(),
      };
      await withTransaction(pool, (tx) =>
        insertNotification(tx, crypto.randomUUID(), { id: crypto.randomUUID(), type: 'comment.mention.created' }, n),
      );
    }
    return Number(process.hrtime.bigint() - started) / 1e6 / WRITES;
  }
  // Without the column, the list's statement as it was before it: the same, less the group key.
  const withoutGroupKey = {
    query: (text, values) => pool.query(text.replace('group_key AS "groupKey", ', ''), values),
  };
  async function reads(db) {
    const started = process.hrtime.bigint();
    for (let i = 0; i < READS; i += 1) await findPage(db, recipient, { unreadOnly: false }, { limit: 20, offset: 0 });
    return Number(process.hrtime.bigint() - started) / 1e6 / READS;
  }

  const results = { 'without 009': { write: [], list: [] }, 'with 009': { write: [], list: [] } };
  await writes();
  await reads(pool);
  for (let round = 0; round < ROUNDS; round += 1) {
    // Each schema first in every other round, so that a machine getting busier favours neither.
    const order = [
      ['without 009', down],
      ['with 009', up],
    ];
    for (const [schema, sql] of round % 2 === 0 ? order : order.reverse()) {
      // Running a Down or Up that is already in place fails: only the one that changes the schema runs.
      const has =
        (
          await pool.query(
            "SELECT 1 FROM information_schema.columns WHERE table_schema = 'notifications' AND table_name = 'notifications' AND column_name = 'group_key'",
          )
        ).rowCount === 1;
      if (has !== (schema === 'with 009')) await pool.query(sql);
      await pool.query('VACUUM ANALYZE notifications');
      results[schema].write.push(await writes());
      results[schema].list.push(await reads(schema === 'with 009' ? pool : withoutGroupKey));
    }
  }
  for (const [schema, { write, list }] of Object.entries(results)) {
    const show = (times) => times.map((ms) => ms.toFixed(3)).join(' ');
    console.log(
      `${schema.padEnd(12)} mention write ${show(write)} ms   flat list page 1 ${show(list)} ms   (${WRITES} writes, ${READS} reads a round)`,
    );
  }
} finally {
  await pool?.end();
  await admin.query(`DROP DATABASE ${database} WITH (FORCE)`);
  await admin.end();
}
