// Starts the built services and the gateway as separate processes on spare ports, on a database of
// their own, for the benchmark and the whole-system tests; and stops them.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import pg from 'pg';
import { ensureKeyPair } from './keys.mjs';
import { services, upstreamVariables } from './services.mjs';

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

/**
 * `portOffset` moves every port (3000 → 3000 + offset) so a running `npm start` is not disturbed;
 * `env` adds settings for every process; `logs` 'inherit' shows their output.
 */
export async function startSystem({
  name,
  portOffset,
  databaseUrl = 'postgres://postgres@127.0.0.1:5432/postgres',
  amqpUrl = 'amqp://guest:guest@127.0.0.1:5672',
  env = {},
  logs = 'ignore',
}) {
  const portOf = (service) => services.find((s) => s.name === service).port + portOffset;
  const urlOf = (service) => `http://127.0.0.1:${portOf(service)}`;
  const keysDir = resolve(`.keys/${name}`);
  ensureKeyPair(`${keysDir}/jwt-private.pem`, `${keysDir}/jwt-public.pem`);
  const DATABASE_URL = await freshDatabase(databaseUrl, name);
  const present = services.filter((s) => existsSync(`services/${s.name}/dist/server.js`));
  const upstreams = Object.fromEntries(services.filter((s) => s.name !== 'gateway').flatMap((s) => upstreamVariables(s.name, urlOf(s.name))));
  const children = present.map(({ name: service }) =>
    spawn(process.execPath, [`services/${service}/dist/server.js`], {
      stdio: ['ignore', logs, 'inherit'],
      env: {
        ...process.env,
        ...upstreams,
        PORT: String(portOf(service)),
        DATABASE_URL,
        AMQP_URL: amqpUrl,
        EVENTS_EXCHANGE: `recipes.${name}`,
        LOG_LEVEL: 'warn',
        JWT_PUBLIC_KEY_FILE: `${keysDir}/jwt-public.pem`,
        ...(service === 'users' ? { JWT_PRIVATE_KEY_FILE: `${keysDir}/jwt-private.pem` } : {}),
        ...env,
      },
    }),
  );
  await Promise.all(present.map((s) => waitUntilReady(urlOf(s.name))));
  return {
    services: present.map((s) => s.name),
    urlOf,
    databaseUrl: DATABASE_URL,
    stop: () =>
      Promise.all(
        children.map((child) => new Promise((done) => (child.exitCode !== null ? done() : (child.once('exit', done), child.kill('SIGTERM'))))),
      ),
  };
}
