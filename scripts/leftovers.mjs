// What a test run leaves on the local RabbitMQ and PostgreSQL: `snapshot FILE` records the names of
// queues, exchanges and databases; `compare FILE` lists those there now that were not then, and fails
// if there are any. Run it around `npm test` when nothing else uses the servers: names another run
// makes meanwhile count too.
//
//   node scripts/leftovers.mjs snapshot /tmp/before.json
//   npm test
//   node scripts/leftovers.mjs compare /tmp/before.json
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import pg from 'pg';

const DATABASE_URL = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

/** `rabbitmqctl list_<what> name` in every virtual host, as `name` in `/` and `vhost/name` elsewhere. */
function rabbitNames(what) {
  const list = (args) =>
    JSON.parse(execFileSync('rabbitmqctl', ['-q', ...args, 'name', '--formatter', 'json'], { encoding: 'utf8' }));
  return list(['list_vhosts']).flatMap(({ name: vhost }) =>
    list([`list_${what}`, '-p', vhost]).map(({ name }) => (vhost === '/' ? name : `${vhost}/${name}`)),
  );
}

async function databaseNames() {
  const client = new pg.Client({ connectionString: DATABASE_URL });
  await client.connect();
  try {
    return (await client.query('SELECT datname FROM pg_database')).rows.map((row) => row.datname);
  } finally {
    await client.end();
  }
}

async function snapshot() {
  return { queues: rabbitNames('queues'), exchanges: rabbitNames('exchanges'), databases: await databaseNames() };
}

const [command, file] = process.argv.slice(2);
if (!['snapshot', 'compare'].includes(command) || !file) {
  console.error('usage: node scripts/leftovers.mjs snapshot|compare FILE');
  process.exit(2);
}
const now = await snapshot();
if (command === 'snapshot') {
  writeFileSync(file, JSON.stringify(now, null, 2));
} else {
  const before = JSON.parse(readFileSync(file, 'utf8'));
  let leftovers = 0;
  for (const kind of ['queues', 'exchanges', 'databases']) {
    const known = new Set(before[kind]);
    const added = now[kind].filter((name) => !known.has(name)).sort();
    leftovers += added.length;
    if (added.length > 0)
      console.error(`leftover ${kind} (${added.length}):\n${added.map((name) => `  ${name}`).join('\n')}`);
  }
  if (leftovers > 0) {
    console.error(
      'leftovers: the test run left the names above on the servers; each test file must remove what it makes.',
    );
    process.exit(1);
  }
  console.log('leftovers: none');
}
