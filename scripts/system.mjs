// Starts the built services and the gateway as separate processes on spare ports, on a database of
// their own, for the benchmark and the whole-system tests; and stops them.
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import pg from 'pg';
import { ensureKeyPair, ensureVapidKeys } from './keys.mjs';
import { ServiceProcess } from './service-process.mjs';
import { allocatorSettings, services, upstreamVariables } from './services.mjs';

/**
 * Instance n of a service listens 10 ports above instance n - 1; its internal routes 25 above its own
 * port, its metrics 50 above, and with `inspect`, its inspector 75 above. So a sixth instance would take
 * the first one's metrics port.
 */
const REPLICA_PORT_STEP = 10;
const INTERNAL_PORT_SHIFT = 25;
const METRICS_PORT_SHIFT = 50;
const INSPECT_PORT_SHIFT = 75;
const MAX_REPLICAS = 5;

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

/**
 * Where instance `instance` of `service` listens in a system whose ports are moved by `portOffset`: its
 * port, its public URL and its internal URL (for a service that has internal routes).
 */
export function addressesOf(portOffset) {
  const portOf = (service, instance = 0) =>
    services.find((s) => s.name === service).port + portOffset + instance * REPLICA_PORT_STEP;
  return {
    portOf,
    urlOf: (service, instance = 0) => `http://127.0.0.1:${portOf(service, instance)}`,
    internalUrlOf: (service, instance = 0) => `http://127.0.0.1:${portOf(service, instance) + INTERNAL_PORT_SHIFT}`,
  };
}

/**
 * `portOffset` moves every port (3000 → 3000 + offset) so a running `npm start` is not disturbed;
 * `replicas` runs that many instances of each backend service, behind each gateway; `gateways` that many
 * gateways (each with every backend instance behind it);
 * `env` adds settings for every process; `envFor(service, instance, env)` returns settings for one
 * process over all others, given the `env` it would get without them (e.g. its own DATABASE_URL through a
 * proxy, for the fault campaign); `logs` 'inherit' shows their output, 'pipe' keeps it in each process's
 * `lines`; `inspect` gives each process an inspector port, opened on SIGUSR1 (none is open until then),
 * e.g. for the benchmark to collect garbage before it reads their memory; `readyWithinMs` is how long each
 * process may take to report ready.
 */
export async function startSystem({
  name,
  portOffset,
  replicas = 1,
  gateways = 1,
  databaseUrl = 'postgres://postgres@127.0.0.1:5432/postgres',
  amqpUrl = 'amqp://guest:guest@127.0.0.1:5672',
  env = {},
  envFor = () => ({}),
  logs = 'ignore',
  inspect = false,
  readyWithinMs = 30_000,
}) {
  if (!(replicas >= 1 && replicas <= MAX_REPLICAS))
    throw new Error(`replicas must be 1 to ${MAX_REPLICAS}, not ${replicas}`);
  if (!(gateways >= 1 && gateways <= MAX_REPLICAS))
    throw new Error(`gateways must be 1 to ${MAX_REPLICAS}, not ${gateways}`);
  const { portOf, urlOf, internalUrlOf } = addressesOf(portOffset);
  const keysDir = resolve(`.keys/${name}`);
  ensureKeyPair(`${keysDir}/jwt-private.pem`, `${keysDir}/jwt-public.pem`);
  const { generated: _, ...pushKeys } = ensureVapidKeys(`${keysDir}/vapid.json`);
  const DATABASE_URL = await freshDatabase(databaseUrl, name);
  const present = services.filter((s) => existsSync(`services/${s.name}/dist/server.js`));
  const instancesOf = (service) => Array.from({ length: service === 'gateway' ? gateways : replicas }, (_, i) => i);
  // The gateway takes every instance of a service, and so do the services' look-ups of each other's internal port.
  const upstreams = Object.fromEntries(
    services
      .filter((s) => s.name !== 'gateway')
      .flatMap((s) =>
        upstreamVariables(s.name, {
          url: instancesOf(s.name)
            .map((i) => urlOf(s.name, i))
            .join(','),
          internalUrl:
            s.internalPort &&
            instancesOf(s.name)
              .map((i) => internalUrlOf(s.name, i))
              .join(','),
        }),
      ),
  );
  const processes = present.flatMap(({ name: service }) =>
    instancesOf(service).map((instance) => {
      const { internalPort } = services.find((s) => s.name === service);
      const inspectPort = inspect ? portOf(service, instance) + INSPECT_PORT_SHIFT : undefined;
      const base = {
        ...process.env,
        ...allocatorSettings,
        ...(inspectPort
          ? { NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ''} --inspect-port=127.0.0.1:${inspectPort}`.trim() }
          : {}),
        ...upstreams,
        PORT: String(portOf(service, instance)),
        METRICS_PORT: String(portOf(service, instance) + METRICS_PORT_SHIFT),
        ...(internalPort ? { INTERNAL_PORT: String(portOf(service, instance) + INTERNAL_PORT_SHIFT) } : {}),
        DATABASE_URL,
        AMQP_URL: amqpUrl,
        EVENTS_EXCHANGE: `recipes.${name}`,
        LOG_LEVEL: 'warn',
        JWT_PUBLIC_KEY_FILE: `${keysDir}/jwt-public.pem`,
        ...(service === 'users' ? { JWT_PRIVATE_KEY_FILE: `${keysDir}/jwt-private.pem` } : {}),
        ...(service === 'notifications' ? pushKeys : {}),
        ...env,
      };
      return new ServiceProcess({
        service,
        instance,
        port: portOf(service, instance),
        metricsPort: portOf(service, instance) + METRICS_PORT_SHIFT,
        logs,
        inspectPort,
        readyWithinMs,
        env: { ...base, ...envFor(service, instance, base) },
      });
    }),
  );
  const stop = () => Promise.all(processes.map((p) => p.kill('SIGTERM')));
  try {
    await Promise.all(processes.map((p) => p.start()));
  } catch (error) {
    await stop();
    throw error;
  }
  return {
    services: present.map((s) => s.name),
    urlOf,
    internalUrlOf,
    databaseUrl: DATABASE_URL,
    processes,
    process: (service, instance = 0) => processes.find((p) => p.service === service && p.instance === instance),
    stop,
  };
}
