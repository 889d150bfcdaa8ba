// Starts the built services and the gateway on spare ports for a benchmark, and stops them after.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import pg from 'pg';
import { ensureKeyPair } from '../scripts/keys.mjs';
import { services } from '../scripts/services.mjs';

const PORT_OFFSET = 1100; // 3000 → 4100, so a running `npm start` is not disturbed

export const portOf = (name) => services.find((s) => s.name === name).port + PORT_OFFSET;
export const urlOf = (name) => `http://127.0.0.1:${portOf(name)}`;

async function freshDatabase(adminUrl, name) {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  await client.query(`CREATE DATABASE ${name}`);
  await client.end();
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

async function waitUntilReady(url, timeoutMs = 30_000) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const ok = await fetch(`${url}/health/ready`).then((r) => r.ok, () => false);
    if (ok) return;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`${url} did not become ready`);
}

export async function startSystem({ databaseUrl = 'postgres://postgres@127.0.0.1:5432/postgres', amqpUrl = 'amqp://guest:guest@127.0.0.1:5672' } = {}) {
  const keysDir = resolve('bench/results/keys');
  ensureKeyPair(`${keysDir}/jwt-private.pem`, `${keysDir}/jwt-public.pem`);
  const DATABASE_URL = await freshDatabase(databaseUrl, 'recipes_bench');
  const present = services.filter((s) => existsSync(`services/${s.name}/dist/server.js`));
  const upstreams = Object.fromEntries(services.filter((s) => s.name !== 'gateway').map((s) => [`${s.name.toUpperCase()}_URL`, urlOf(s.name)]));
  const children = present.map(({ name }) =>
    spawn(process.execPath, [`services/${name}/dist/server.js`], {
      stdio: ['ignore', 'ignore', 'inherit'],
      env: {
        ...process.env,
        ...upstreams,
        PORT: String(portOf(name)),
        DATABASE_URL,
        AMQP_URL: amqpUrl,
        EVENTS_EXCHANGE: 'recipes.bench',
        LOG_LEVEL: 'warn',
        RATE_LIMIT_ENABLED: 'false',
        REGISTER_LIMIT_PER_ADDRESS: '1000000',
        JWT_PUBLIC_KEY_FILE: `${keysDir}/jwt-public.pem`,
        JWT_PRIVATE_KEY_FILE: `${keysDir}/jwt-private.pem`,
      },
    }),
  );
  await Promise.all(present.map((s) => waitUntilReady(urlOf(s.name))));
  return {
    services: present.map((s) => s.name),
    databaseUrl: DATABASE_URL,
    stop: () =>
      Promise.all(
        children.map((child) => new Promise((done) => (child.exitCode !== null ? done() : (child.once('exit', done), child.kill('SIGTERM'))))),
      ),
  };
}
