// `npm start`: checks PostgreSQL and RabbitMQ, prepares the database and a development key pair,
// then runs the gateway and every service that exists as separate processes with prefixed logs, and
// HAProxy in front of the gateway where it is installed (scripts/front.mjs; FRONT=none leaves it out).
// Each service migrates its own schema as it starts.
import { existsSync } from 'node:fs';
import { connect } from 'node:net';
import { resolve } from 'node:path';
import concurrently from 'concurrently';
import pg from 'pg';
import { FRONT_SOURCE_ADDRESS, frontCommand, HAPROXY } from './front.mjs';
import { ensureKeyPair, ensureVapidKeys } from './keys.mjs';
import { allocatorSettings, serviceArgs, services, upstreamVariables } from './services.mjs';

const DATABASE_URL = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/recipes';
const AMQP_URL = process.env.AMQP_URL ?? 'amqp://guest:guest@127.0.0.1:5672';
// Moves every port by this much, so a second system (the benchmark's) can run beside one on the defaults.
const PORT_OFFSET = Number(process.env.PORT_OFFSET ?? 0);

function reachable(url, defaultPort) {
  const { hostname, port } = new URL(url);
  return new Promise((done) => {
    const socket = connect({ host: hostname, port: Number(port || defaultPort), timeout: 2000 });
    socket.once('connect', () => done(socket.end() && true));
    socket.once('timeout', () => done(socket.destroy() && false));
    socket.once('error', () => done(false));
  });
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

const placed = services.map(({ port, internalPort, backPort, metricsPort, ...service }) => ({
  ...service,
  port: port + PORT_OFFSET,
  metricsPort: metricsPort + PORT_OFFSET,
  internalPort: internalPort && internalPort + PORT_OFFSET,
  backPort: backPort && backPort + PORT_OFFSET,
}));
const present = placed.filter((service) => existsSync(`services/${service.name}/dist/server.js`));
const upstreams = Object.fromEntries(
  placed
    .filter((s) => s.name !== 'gateway')
    .flatMap((s) =>
      upstreamVariables(s.name, {
        url: `http://127.0.0.1:${s.port}`,
        internalUrl: s.internalPort && `http://127.0.0.1:${s.internalPort}`,
      }),
    ),
);

/**
 * HAProxy on the gateway's port, the gateway behind it on its back port, where HAProxy is installed and the
 * gateway is there to be fronted.
 */
function frontProcess(gateway) {
  if (process.env.FRONT === 'none' || !existsSync(HAPROXY) || !present.includes(gateway)) return undefined;
  const { command, args, remove } = frontCommand({
    port: gateway.port,
    gateway: `http://127.0.0.1:${gateway.backPort}`,
  });
  process.once('exit', remove);
  return { name: 'front', command: [command, ...args].join(' ') };
}
const gateway = placed.find((s) => s.name === 'gateway');
const front = frontProcess(gateway);

const { result } = concurrently(
  present
    .map(({ name, port, backPort, internalPort, metricsPort }) => ({
      name,
      // The same Node as this script: the project's own (node_modules/.bin/node, pinned in package.json) under npm.
      command: [`"${process.execPath}"`, ...serviceArgs(name)].join(' '),
      env: {
        ...allocatorSettings,
        ...upstreams,
        DATABASE_URL,
        AMQP_URL,
        PORT: String(front && name === 'gateway' ? backPort : port),
        // Fronted, the gateway believes HAProxy's X-Forwarded-For and no one else's (scripts/front.mjs).
        ...(front && name === 'gateway' ? { TRUST_PROXY: FRONT_SOURCE_ADDRESS } : {}),
        METRICS_PORT: String(metricsPort),
        ...(internalPort ? { INTERNAL_PORT: String(internalPort) } : {}),
        // Only the users service ever sees the private key.
        JWT_PUBLIC_KEY_FILE: keys.JWT_PUBLIC_KEY_FILE,
        ...(name === 'users' ? { JWT_PRIVATE_KEY_FILE: keys.JWT_PRIVATE_KEY_FILE } : {}),
        ...(name === 'notifications' ? pushKeys : {}),
      },
    }))
    .concat(front ?? []),
  // raw: each process writes its JSON lines (each names its `service`) straight to this terminal, rather
  // than through a pipe this process reads and re-writes, which cost CPU on every request.
  { raw: true, killOthersOn: ['failure'], handleInput: false },
);
console.log(
  `start: ${present.map((s) => s.name).join(', ')}; the API is at http://127.0.0.1:${gateway.port}/api` +
    `${front ? ` (HAProxy in front of the gateway, which listens on ${gateway.backPort})` : ''}, ` +
    `docs at /docs; Prometheus metrics at /metrics on ports ${present.map((s) => s.metricsPort).join(', ')}`,
);
result.catch(() => process.exit(1));
