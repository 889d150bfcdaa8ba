// How much a relay's wake-up costs the writers: each transaction inserts an outbox row, and the row's
// trigger either NOTIFYs (every listening connection of the database is signalled at commit, and commits
// that notify take one lock in turn) or raises a notice to its own connection only. Five other
// connections LISTEN, as five services' relays do. Prints committed transactions per second of each, in
// alternating rounds. Run alone: `nice node bench/micro/outbox-wake.mjs`.
import pg from 'pg';

const url = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const database = `micro_wake_${process.pid}`;
const WRITERS = 8;
const SECONDS = 3;
const ROUNDS = 3;

const admin = new pg.Client({ connectionString: url });
await admin.connect();
await admin.query(`CREATE DATABASE ${database}`);
const at = new URL(url);
at.pathname = `/${database}`;
const connect = async () => {
  const client = new pg.Client({ connectionString: at.href });
  await client.connect();
  client.on('notice', () => {});
  return client;
};
try {
  const setup = await connect();
  await setup.query(`
    CREATE TABLE outbox (id bigserial PRIMARY KEY, payload jsonb NOT NULL);
    CREATE FUNCTION wake() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF current_setting('micro.wake', true) = 'notice' THEN RAISE NOTICE 'outbox written';
      ELSE PERFORM pg_notify('svc_outbox', ''); END IF;
      RETURN NULL;
    END $$;
    CREATE TRIGGER wake AFTER INSERT ON outbox FOR EACH STATEMENT EXECUTE FUNCTION wake();`);
  await setup.end();
  const listeners = await Promise.all(
    ['svc', 'a', 'b', 'c', 'd'].map(async (name) => {
      const client = await connect();
      await client.query(`LISTEN ${name}_outbox`);
      return client;
    }),
  );

  async function run(mode) {
    const writers = await Promise.all(Array.from({ length: WRITERS }, connect));
    await Promise.all(writers.map((client) => client.query(`SET micro.wake = '${mode}'`)));
    let committed = 0;
    const until = Date.now() + SECONDS * 1000;
    await Promise.all(
      writers.map(async (client) => {
        while (Date.now() < until) {
          await client.query('BEGIN');
          await client.query(`INSERT INTO outbox (payload) VALUES ('{"type":"x"}')`);
          await client.query('COMMIT');
          committed += 1;
        }
      }),
    );
    await Promise.all(writers.map((client) => client.end()));
    return committed / SECONDS;
  }

  const results = { notify: [], notice: [] };
  for (let round = 0; round < ROUNDS; round += 1) {
    for (const mode of ['notify', 'notice']) results[mode].push(await run(mode));
  }
  for (const [mode, rates] of Object.entries(results)) {
    console.log(
      `${mode.padEnd(6)} ${rates.map((rate) => rate.toFixed(0).padStart(6)).join(' ')} commits/s (${WRITERS} writers, 5 listeners)`,
    );
  }
  await Promise.all(listeners.map((client) => client.end()));
} finally {
  await admin.query(`DROP DATABASE ${database} WITH (FORCE)`);
  await admin.end();
}
