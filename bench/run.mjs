// `npm run bench`: starts the system on spare ports, seeds it, measures every scenario through the
// gateway and directly against the owning service in the same run, prints one table and writes JSON.
import { spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { commentScenarios, commentsEnv } from './comments.mjs';
import { measure } from './measure.mjs';
import { collectionsScenarios, seedCollections } from './seed-collections.mjs';
import { notificationRows } from './notifications.mjs';
import { seedRecipes } from './seed-recipes.mjs';
import { startSystem } from '../scripts/system.mjs';

const durationSeconds = Number(process.env.BENCH_DURATION_SECONDS ?? 10);
const connections = Number(process.env.BENCH_CONNECTIONS ?? 50);

async function post(url, body) {
  const response = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  if (!response.ok) throw new Error(`${url}: ${response.status} ${await response.text()}`);
  return response.json();
}

async function seed() {
  const { user, token } = await post(`${urlOf('users')}/api/auth/register`, { username: 'bench_user', password: 'bench password' });
  const author = await seedRecipes(system.databaseUrl, { viewerId: user.id });
  return { user, token, author, collections: await seedCollections(system) };
}

/** Each scenario: a name, the path through the gateway, which service owns it, and headers if any. */
function scenarios({ user, token, author, collections }) {
  const recipes = `/api/users/${author}/recipes`;
  return [
    { name: 'GET /api/users/{id}', service: 'users', path: `/api/users/${user.id}` },
    { name: 'GET /api/users/{id}/recipes (100k recipes)', service: 'content', path: recipes },
    { name: 'GET /api/users/{id}/recipes (100k recipes, token)', service: 'content', path: recipes, headers: { authorization: `Bearer ${token}` } },
    ...collectionsScenarios(collections),
  ];
}

async function ceiling() {
  const port = 4199;
  const child = spawn(process.execPath, ['bench/ceiling.mjs'], { env: { ...process.env, PORT: String(port) }, stdio: 'inherit' });
  await new Promise((r) => setTimeout(r, 500));
  try {
    return await measure({ url: `http://127.0.0.1:${port}/`, connections, durationSeconds });
  } finally {
    child.kill('SIGTERM');
  }
}

const system = await startSystem({
  name: 'recipes_bench',
  portOffset: 1100,
  env: { RATE_LIMIT_ENABLED: 'false', REGISTER_LIMIT_PER_ADDRESS: '1000000', ...commentsEnv },
});
const { urlOf } = system;
const rows = [];
try {
  const seeded = await seed();
  const commentCases = await commentScenarios(system);
  rows.push({ scenario: 'bare Fastify hello (ceiling)', via: 'direct', connections, ...(await ceiling()) });
  for (const scenario of [...scenarios(seeded), ...commentCases]) {
    // One connection shows what the gateway adds to each request; many show throughput under load,
    // where on a small machine the gateway, the service and the load generator share the cores.
    for (const load of [1, connections]) {
      const options = { method: scenario.method, headers: scenario.headers, body: scenario.body, connections: load, durationSeconds };
      const direct = await measure({ ...options, url: `${urlOf(scenario.service)}${scenario.path}` });
      const gateway = await measure({ ...options, url: `${urlOf('gateway')}${scenario.path}` });
      rows.push({ scenario: scenario.name, via: `direct (${scenario.service})`, connections: load, ...direct });
      rows.push({
        scenario: scenario.name,
        via: 'gateway',
        connections: load,
        ...gateway,
        // With one connection each request waits for the last, so 1000 / rps is the time of one request,
        // to the microsecond (autocannon's percentiles are whole milliseconds).
        ...(load === 1 ? { overheadMs: +(1000 / gateway.requestsPerSecond - 1000 / direct.requestsPerSecond).toFixed(3) } : {}),
        throughputRatio: +(gateway.requestsPerSecond / direct.requestsPerSecond).toFixed(2),
      });
    }
  }
  rows.push(...(await notificationRows(system, { connections, durationSeconds })));
} finally {
  await system.stop();
}

console.log(`\n${durationSeconds} s per measurement, ${new Date().toISOString()}\n`);
console.table(rows);
for (const row of rows.filter((r) => r.via === 'gateway' && r.connections === 1)) {
  const pass = row.overheadMs <= 1;
  console.log(`target: gateway adds ≤ 1 ms per request (1 connection) on ${row.scenario}: ${row.overheadMs} ms ${pass ? 'PASS' : 'MISS'}`);
}
mkdirSync('bench/results', { recursive: true });
const file = `bench/results/${new Date().toISOString().replaceAll(':', '-')}.json`;
writeFileSync(file, JSON.stringify({ connections, durationSeconds, rows }, null, 2));
console.log(`written to ${file}`);
