// `npm start`: checks PostgreSQL and RabbitMQ, prepares the database and a development key pair, then runs the
// gateway and every service that exists as separate processes (INSTANCES of each, 1 by default), each writing its
// own log lines, and HAProxy in front of the gateway where it is installed (scripts/front.mjs; FRONT=none leaves it
// out), under a supervisor that restarts a process that exits and rolls a restart through every instance on
// `npm run restart` (scripts/supervisor.mjs). Each service migrates its own schema as it starts.
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import pg from 'pg';
import { FRONT_SOURCE_ADDRESS, frontCommand, HAPROXY } from './front.mjs';
import { ensureKeyPair, ensureVapidKeys } from './keys.mjs';
import { reachable } from './reachable.mjs';
import { ServiceProcess } from './service-process.mjs';
import { allocatorSettings, services, upstreamVariables } from './services.mjs';
import { controlSocket, supervise } from './supervisor.mjs';

const DATABASE_URL = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/recipes';
const AMQP_URL = process.env.AMQP_URL ?? 'amqp://guest:guest@127.0.0.1:5672';
// Moves every port by this much, so a second system (the benchmark's) can run beside one on the defaults.
const PORT_OFFSET = Number(process.env.PORT_OFFSET ?? 0);
// How many instances of each service run, 1 to 5; instance n listens 10 n ports above the first. More than one
// gateway needs the front, which shares the public port between them.
const INSTANCES = Number(process.env.INSTANCES ?? 1);
const INSTANCE_PORT_STEP = 10;
if (!(Number.isInteger(INSTANCES) && INSTANCES >= 1 && INSTANCES <= 5)) {
  console.error(`start: INSTANCES must be 1 to 5, not ${process.env.INSTANCES}`);
  process.exit(2);
}

async function requireServers() {
  if (!(await reachable(DATABASE_URL, 5432))) {
    console.error(
      `PostgreSQL is not reachable at ${new URL(DATABASE_URL).host}: start it (e.g. pg_ctlcluster ` +
        `--skip-systemctl-redirect $(ls /etc/postgresql) main start) or set DATABASE_URL.`,
    );
    process.exit(1);
  }
  if (!(await reachable(AMQP_URL, 5672))) {
    console.error(
      `RabbitMQ is not reachable at ${new URL(AMQP_URL).host}: start it (e.g. rabbitmq-server -detached) or set AMQP_URL.`,
    );
    process.exit(1);
  }
}

/** The services' database, created on first start. */
async function ensureDatabase() {
  const target = new URL(DATABASE_URL);
  const name = decodeURIComponent(target.pathname.slice(1));
  const admin = new URL(DATABASE_URL);
  admin.pathname = '/postgres';
  const client = new pg.Client({ connectionString: admin.toString() });
  await client.connect();
  try {
    const { rowCount } = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
    if (rowCount === 0) {
      await client.query(`CREATE DATABASE "${name.replaceAll('"', '""')}"`);
      console.log(`start: created database ${name}`);
    }
  } finally {
    await client.end();
  }
}

/** A development signing key pair, made once, unless key files are configured. */
function ensureKeys() {
  const privateKeyFile = resolve(process.env.JWT_PRIVATE_KEY_FILE ?? '.keys/jwt-private.pem');
  const publicKeyFile = resolve(process.env.JWT_PUBLIC_KEY_FILE ?? '.keys/jwt-public.pem');
  if (ensureKeyPair(privateKeyFile, publicKeyFile))
    console.log(`start: generated a development key pair in ${resolve(privateKeyFile, '..')}`);
  return { JWT_PRIVATE_KEY_FILE: privateKeyFile, JWT_PUBLIC_KEY_FILE: publicKeyFile };
}

/** A development VAPID pair for Web Push (docs/push.md), made once, unless one is configured. */
function ensurePushKeys() {
  const { PUSH_VAPID_PUBLIC_KEY, PUSH_VAPID_PRIVATE_KEY } = process.env;
  if (PUSH_VAPID_PUBLIC_KEY && PUSH_VAPID_PRIVATE_KEY) return { PUSH_VAPID_PUBLIC_KEY, PUSH_VAPID_PRIVATE_KEY };
  const { generated, ...keys } = ensureVapidKeys(resolve('.keys/vapid.json'));
  if (generated) console.log(`start: generated a development VAPID pair in ${resolve('.keys/vapid.json')}`);
  return keys;
}

await requireServers();
await ensureDatabase();
const keys = ensureKeys();
const pushKeys = ensurePushKeys();

const present = services.filter((service) => existsSync(`services/${service.name}/dist/server.js`));
const gateway = services.find((s) => s.name === 'gateway');
const fronted = process.env.FRONT !== 'none' && existsSync(HAPROXY) && present.includes(gateway);
const instancesOf = (service) => (service === 'gateway' && !fronted ? 1 : INSTANCES);
/** Where instance `instance` of a service listens: each of its ports moved by PORT_OFFSET and the instance's step. */
const at = (port, instance) => port && port + PORT_OFFSET + instance * INSTANCE_PORT_STEP;
const urlsOf = (service, portOf) =>
  Array.from({ length: instancesOf(service.name) }, (_, i) => `http://127.0.0.1:${at(portOf(service), i)}`).join(',');
const upstreams = Object.fromEntries(
  services
    .filter((s) => s.name !== 'gateway')
    .flatMap((s) =>
      upstreamVariables(s.name, {
        url: urlsOf(s, (service) => service.port),
        internalUrl: s.internalPort && urlsOf(s, (service) => service.internalPort),
      }),
    ),
);

/** Every instance of every service present, as a process the supervisor starts, restarts and stops. */
const processes = present.flatMap(({ name, port, backPort, internalPort, metricsPort }) =>
  Array.from({ length: instancesOf(name) }, (_, instance) => {
    const listening = at(fronted && name === 'gateway' ? backPort : port, instance);
    return new ServiceProcess({
      service: name,
      instance,
      port: listening,
      metricsPort: at(metricsPort, instance),
      // Each process writes its JSON lines (each names its `service`) straight to this terminal.
      logs: 'inherit',
      ownGroup: true,
      // A first start on a new machine migrates every schema: minutes on a slow disk.
      readyWithinMs: 300_000,
      env: {
        ...process.env,
        ...allocatorSettings,
        ...upstreams,
        DATABASE_URL,
        AMQP_URL,
        PORT: String(listening),
        // Fronted, the gateway believes HAProxy's X-Forwarded-For and no one else's (scripts/front.mjs).
        ...(fronted && name === 'gateway' ? { TRUST_PROXY: FRONT_SOURCE_ADDRESS } : {}),
        METRICS_PORT: String(at(metricsPort, instance)),
        ...(internalPort ? { INTERNAL_PORT: String(at(internalPort, instance)) } : {}),
        // Only the users service ever sees the private key.
        JWT_PUBLIC_KEY_FILE: keys.JWT_PUBLIC_KEY_FILE,
        ...(name === 'users' ? { JWT_PRIVATE_KEY_FILE: keys.JWT_PRIVATE_KEY_FILE } : {}),
        ...(name === 'notifications' ? pushKeys : {}),
      },
    });
  }),
);

/** HAProxy on the gateway's port, before every gateway instance on its back port. */
function frontCommandFor() {
  const gateways = processes.filter((p) => p.service === 'gateway').map((p) => p.url);
  const { command, args, remove } = frontCommand({ port: at(gateway.port, 0), gateways });
  process.once('exit', remove);
  return { command, args };
}

const publicUrl = `http://127.0.0.1:${at(gateway.port, 0)}`;
await supervise({
  processes,
  front: fronted ? frontCommandFor() : undefined,
  socket: controlSocket(PORT_OFFSET),
  started: () =>
    console.log(
      `start: ${present.map((s) => `${s.name}${instancesOf(s.name) > 1 ? ` ×${instancesOf(s.name)}` : ''}`).join(', ')}; ` +
        `the API is at ${publicUrl}/api` +
        `${fronted ? ` (HAProxy in front of the gateway, which listens on ${at(gateway.backPort, 0)})` : ''}, ` +
        `docs at /docs; Prometheus metrics at /metrics on ports ${processes.map((p) => new URL(p.metricsUrl).port).join(', ')}; ` +
        '`npm run restart` restarts every instance in turn',
    ),
});
