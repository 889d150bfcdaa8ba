import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  createTestDatabase,
  eventually,
  type LocalPushService,
  removeExchangeFamily,
  startLocalPushService,
  type TestDatabase,
  uniqueSuffix,
} from '@recipes/testing';
import { removeRedisKeys, TEST_REDIS_URL } from '@recipes/testing/cleanup';
import { type EventStreamClient, openEventStream } from '@recipes/testing/sse';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { buildImage, podman } from '../../scripts/image.mjs';
import { services } from '../../scripts/services.mjs';
import { addressesOf } from '../../scripts/system.mjs';
import { jsonClient } from '../../test/support/http.js';
import { create, register } from '../../test/support/world.js';
import { composeServices, hostEnvironment, logsOf, runContainer, volumeArgs } from './containers.js';

/**
 * The one image of deploy/Dockerfile (docs/operations.md), built as CI builds it, then the whole system run
 * from it: every service its own container, configured as docker-compose.yml configures it, on this
 * machine's PostgreSQL, RabbitMQ and Redis. A cold build (the base made, every layer built) takes minutes;
 * podman keeps the base and the layers for the next run.
 */
const RUN = `recipes-image-${uniqueSuffix()}`;
const IMAGE = `localhost/${RUN}:test`;
const PORT_OFFSET = 7300;
const BUILD_TIMEOUT_MS = 30 * 60_000;

const { urlOf } = addressesOf(PORT_OFFSET);
const gateway = urlOf('gateway');
const defined = composeServices();
const containers: string[] = [];
let keysDir: string;
let database: TestDatabase | undefined;
let pushService: LocalPushService | undefined;
const streams: EventStreamClient[] = [];

/** What the image holds under /app/node_modules: every installed package's path, as the lock file names them. */
const INSTALLED_PACKAGES = `
const { existsSync, readdirSync } = require('node:fs');
const found = [];
const walk = (dir) => {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (!entry.isDirectory() || entry.name.startsWith('.')) continue;
    const path = dir + '/' + entry.name;
    if (entry.name.startsWith('@')) walk(path);
    else if (existsSync(path + '/package.json')) {
      found.push(path);
      if (existsSync(path + '/node_modules')) walk(path + '/node_modules');
    }
  }
};
walk('node_modules');
for (const dir of ['libs', 'services'])
  for (const workspace of readdirSync(dir))
    if (existsSync(dir + '/' + workspace + '/node_modules')) walk(dir + '/' + workspace + '/node_modules');
console.log(JSON.stringify(found));
`;

beforeAll(async () => {
  const started = Date.now();
  await buildImage(IMAGE, { quiet: true });
  const size = Number(await podman(['image', 'inspect', '--format', '{{.Size}}', IMAGE]));
  console.log(`image: built ${IMAGE} in ${Math.round((Date.now() - started) / 1000)} s, ${Math.round(size / 1e6)} MB`);
}, BUILD_TIMEOUT_MS);

afterAll(async () => {
  for (const stream of streams) stream.close();
  // Quietly: podman says, for each, that it found no systemd to remove a health check timer from.
  const quietly = (args: string[]) => podman(['--log-level', 'fatal', ...args]).catch(() => undefined);
  await Promise.all(containers.map((name) => quietly(['rm', '--force', '--time', '5', name])));
  // The tag only: its layers stay in podman's cache for the next build; unnamed ones over three days old go,
  // so that the cache does not grow without end.
  await quietly(['rmi', IMAGE]);
  await quietly(['image', 'prune', '--force', '--filter', 'until=72h']);
  await database?.drop();
  await removeExchangeFamily(inject('amqpUrl'), RUN);
  await removeRedisKeys(TEST_REDIS_URL, `${RUN}:`);
  await pushService?.close();
  if (keysDir) rmSync(keysDir, { recursive: true, force: true });
}, 60_000);

/** Runs `command` in a container of the image that is removed when it ends, and gives its output. */
const runOnce = (...command: string[]) =>
  podman(['--log-level', 'fatal', 'run', '--rm', '--network', 'none', '--no-healthcheck', IMAGE, ...command]);

describe('the image', () => {
  it('holds the production dependencies of the lock file, and no development one', async () => {
    const lock = JSON.parse(readFileSync(new URL('../../package-lock.json', import.meta.url), 'utf8')) as {
      packages: Record<string, { dev?: boolean; devOptional?: boolean; optional?: boolean; link?: boolean }>;
    };
    const packages = Object.entries(lock.packages).filter(
      ([path, entry]) => path.includes('node_modules/') && !entry.link,
    );
    const developmentOnly = packages.filter(([, entry]) => entry.dev).map(([path]) => path);
    // Optional ones are for other platforms, or may fail to install: required only where they are not.
    const production = packages
      .filter(([, entry]) => !entry.dev && !entry.devOptional && !entry.optional)
      .map(([path]) => path);
    // The test tooling and the toolchain are among what must stay out, or the lock file misleads this check.
    for (const name of ['vitest', 'vite', 'rolldown', '@pact-foundation/pact', 'testcontainers', 'ssh2', 'typescript'])
      expect(developmentOnly, name).toContain(`node_modules/${name}`);
    expect(developmentOnly).toContain('node_modules/playwright-core');

    const installed = new Set(
      JSON.parse(
        await podman(['run', '--rm', '--network', 'none', IMAGE, 'node', '-e', INSTALLED_PACKAGES]),
      ) as string[],
    );
    expect(developmentOnly.filter((path) => installed.has(path))).toEqual([]);
    expect(production.filter((path) => !installed.has(path))).toEqual([]);
  });

  it('runs as a non-root user and says how to check its health', async () => {
    const [image] = JSON.parse(await podman(['image', 'inspect', IMAGE])) as Array<{
      Config: { User?: string };
      Healthcheck?: { Test?: string[] };
    }>;
    expect(image!.Config.User).toBe('node');
    expect(await runOnce('id', '-u')).not.toBe('0');
    // Run in each container below, once it is ready.
    expect(image!.Healthcheck?.Test?.join(' ')).toContain('/health/ready');
  });
});

/** Makes the key pairs as docker-compose.yml's `keys` service does, with the image's scripts/keys.mjs. */
async function makeKeys(): Promise<Record<string, string>> {
  keysDir = mkdtempSync(join(tmpdir(), `${RUN}-`));
  // The containers' user must reach the folders it mounts.
  chmodSync(keysDir, 0o755);
  for (const volume of ['keys-private', 'keys-public']) mkdirSync(join(keysDir, volume));
  const keys = defined.keys!;
  await podman([
    'run',
    '--rm',
    '--network',
    'none',
    '--no-healthcheck',
    '--user',
    keys.user ?? 'node',
    ...volumeArgs(keys, keysDir),
    IMAGE,
    ...keys.command!,
  ]);
  // The notifications service's VAPID pair, which keys.mjs makes beside the signing key.
  return JSON.parse(readFileSync(join(keysDir, 'keys-private', 'vapid.json'), 'utf8'));
}

/** Starts `service` from the image and waits until it is ready, then runs the image's health check in it. */
async function start(service: string, machine: Parameters<typeof hostEnvironment>[2], env: Record<string, string>) {
  const name = `${RUN}-${service}`;
  containers.push(name);
  const definition = defined[service]!;
  await runContainer(
    name,
    IMAGE,
    { ...hostEnvironment(service, definition, machine), ...env },
    volumeArgs(definition, keysDir),
  );
  const deadline = Date.now() + 60_000;
  while (
    !(await fetch(`${urlOf(service)}/health/ready`).then(
      (r) => r.ok,
      () => false,
    ))
  ) {
    const state = await podman(['inspect', '--format', '{{.State.Status}}', name]);
    if (state !== 'running' || Date.now() > deadline)
      throw new Error(`${service} is ${state}, not ready:\n${await logsOf(name)}`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  // Retried as the image's HEALTHCHECK is: one check can run out of its 3 s while the machine starts the rest.
  const healthy = () =>
    podman(['healthcheck', 'run', name]).then(
      () => true,
      () => undefined,
    );
  await eventually(healthy, 30_000, 1_000).catch(async () => {
    throw new Error(`${service} stays unhealthy by the image's health check:\n${await logsOf(name)}`);
  });
}

describe('the system run from the image, a container per service', () => {
  beforeAll(async () => {
    // A run that was killed left its containers, on the ports this one takes.
    const stale = await podman(['ps', '--all', '--filter', 'name=^recipes-image-', '--format', '{{.Names}}']);
    for (const name of stale.split('\n').filter(Boolean))
      await podman(['--log-level', 'fatal', 'rm', '--force', name]).catch(() => undefined);
    database = await createTestDatabase();
    pushService = await startLocalPushService();
    const vapid = await makeKeys();
    const machine = {
      portOffset: PORT_OFFSET,
      databaseUrl: database.url,
      amqpUrl: inject('amqpUrl'),
      redisUrl: TEST_REDIS_URL,
      exchange: RUN,
      redisKeyPrefix: `${RUN}:`,
    };
    const backends = services.filter(({ name }) => name !== 'gateway');
    await Promise.all(
      backends.map(({ name }) =>
        start(name, machine, name === 'notifications' ? { ...vapid, PUSH_ALLOW_PRIVATE_ENDPOINTS: 'true' } : {}),
      ),
    );
    await start('gateway', machine, {});
  }, 180_000);

  it('registers, comments with a mention, and delivers the notification on the stream and as a Web Push', async () => {
    const call = jsonClient(`${gateway}/api`);
    const ada = await register(call, `image_ada_${uniqueSuffix()}`);
    const bob = await register(call, `image_bob_${uniqueSuffix()}`);

    const key = await call<{ publicKey: string }>('GET', '/push/public-key');
    const browser = pushService!.subscribe(key.body.publicKey);
    const subscribed = await call('POST', '/push/subscriptions', { ...browser, expirationTime: null }, ada.token);
    expect(subscribed.status).toBe(201);
    const stream = await openEventStream(`${gateway}/api/notifications/stream`, {
      authorization: `Bearer ${ada.token}`,
    });
    streams.push(stream);
    expect(stream.status).toBe(200);
    await stream.next((event) => event.event === 'unread_count');

    const recipe = await create(
      call,
      '/recipes',
      { title: 'Classic Chrome street', cameraModel: 'X100V', filmSimulation: 'Classic Chrome' },
      ada,
      'recipe',
    );
    await create(call, `/recipes/${recipe.id}/comments`, { content: `Lovely, @${ada.user.username}` }, bob, 'comment');

    const event = await stream.next((e) => e.event === 'notification', 10_000);
    const notification = JSON.parse(event.data) as { actor: { username: string }; contentId: string };
    expect(notification).toMatchObject({ actor: { username: bob.user.username }, contentId: recipe.id });
    const [push] = await pushService!.waitFor(browser.id, 1, 10_000);
    expect(push!.payload).toMatchObject({ notification: { actor: { username: bob.user.username } } });
    expect(pushService!.violations).toEqual([]);
  });

  it('serves the API documentation of every service at /docs', async () => {
    const docs = await fetch(`${gateway}/docs`);
    expect(docs.status).toBe(200);
    expect(docs.headers.get('content-type')).toMatch(/^text\/html/);
    await expect
      .poll(
        async () =>
          ((await (await fetch(`${gateway}/docs/json`)).json()) as { info: { description?: string } }).info
            .description ?? '',
        { timeout: 10_000 },
      )
      .not.toContain('Not included');
  });
});
