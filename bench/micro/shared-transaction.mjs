// What joining a request's shared transaction costs (libs/db's SharedTransaction: each join in a savepoint
// of its own, joins taking turns), against running the same statement straight on the transaction's
// connection: one INSERT a join, 2,000 joins a round, alternating rounds, one after another and ten at a
// time (Promise.all, which queue). Run alone: `nice node bench/micro/shared-transaction.mjs`.
import { createPool, SharedTransaction, withTransaction } from '@recipes/db';
import pg from 'pg';

const url = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const database = `micro_shared_${process.pid}`;
const JOINS = 2000;
const ROUNDS = 5;
const logger = { warn: () => {} };

const admin = new pg.Client({ connectionString: url });
await admin.connect();
await admin.query(`CREATE DATABASE ${database}`);
const at = new URL(url);
at.pathname = `/${database}`;
const pool = createPool({ connectionString: at.href, applicationName: 'micro', logger });
try {
  await pool.query('CREATE TABLE rows (id bigserial PRIMARY KEY, value int NOT NULL)');
  const insert = (db, i) => db.query('INSERT INTO rows (value) VALUES ($1)', [i]);

  async function run(mode, parallel) {
    const client = await pool.connect();
    await client.query('BEGIN');
    const shared = new SharedTransaction(pool, client);
    const join = (i) => (mode === 'joined' ? withTransaction(pool, (db) => insert(db, i)) : insert(client, i));
    const started = process.hrtime.bigint();
    await shared.run(async () => {
      for (let i = 0; i < JOINS; i += parallel)
        await Promise.all(Array.from({ length: parallel }, (_, k) => join(i + k)));
    });
    const ms = Number(process.hrtime.bigint() - started) / 1e6 / JOINS;
    await shared.close();
    await client.query('ROLLBACK');
    client.release();
    return ms;
  }
  for (const parallel of [1, 10]) {
    await run('joined', parallel);
    const results = { joined: [], straight: [] };
    for (let round = 0; round < ROUNDS; round += 1) {
      for (const mode of ['joined', 'straight']) results[mode].push(await run(mode, parallel));
    }
    for (const [mode, times] of Object.entries(results)) {
      console.log(
        `${mode.padEnd(8)} ${parallel === 1 ? 'one at a time' : 'ten at a time'}: ${times.map((ms) => ms.toFixed(3)).join(' ')} ms a join`,
      );
    }
  }
} finally {
  await pool.end();
  await admin.query(`DROP DATABASE ${database} WITH (FORCE)`);
  await admin.end();
}
