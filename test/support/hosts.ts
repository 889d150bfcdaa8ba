import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { createTcpProxy, dropDatabase, removeExchangeFamily, type TcpProxy } from '@recipes/testing';
import pg from 'pg';
import { allocatorSettings, serviceArgs, services, upstreamVariables } from '../../scripts/services.mjs';

const run = promisify(execFile);

/**
 * Test hosts: each a network namespace of its own (iproute2's `ip netns`), with one instance of every
 * service and a gateway on the services' usual ports. Each host has a link to this machine's own network
 * namespace, where PostgreSQL and RabbitMQ are reached through proxies of its own (10.77.<n>.1), and a
 * link to each other host (10.77.<100+n>.x): so a test can cut one host from the servers, or two hosts
 * from each other, or kill every process of one, as a network or a machine would fail.
 */
export interface TestHost {
  name: string;
  /** Where this machine reaches the host (the gateway's public address, the services' health). */
  address: string;
  urlOf(service: string): string;
  /** Drops the host's connections to PostgreSQL and RabbitMQ and refuses new ones, until `restoreServers`. */
  cutFromServers(): void;
  restoreServers(): void;
  /** Takes the link to `other` down: packets between them are lost, as in a partition, until `healFrom`. */
  cutFrom(other: TestHost): Promise<void>;
  healFrom(other: TestHost): Promise<void>;
  /** SIGKILLs every process of the host at once, as a machine that dies. */
  killAll(): void;
}

export interface TestHosts {
  hosts: TestHost[];
  stop(): Promise<void>;
}

const ip = (...args: string[]) => run('ip', args, { timeout: 10_000 });

/**
 * Why test hosts cannot be made here (the kernel or the user refuses network namespaces), or undefined when they can.
 */
export async function whyNoHosts(): Promise<string | undefined> {
  const probe = `recipes-probe-${process.pid}`;
  try {
    await ip('netns', 'add', probe);
    await ip('netns', 'del', probe);
    return undefined;
  } catch (error) {
    return `network namespaces are refused here (${(error as { stderr?: string }).stderr?.trim() || (error as Error).message})`;
  }
}

/** One end of a link: its interface, its /30 address, and the namespace it is in (none: this machine's own). */
interface LinkEnd {
  namespace?: string;
  device: string;
  address: string;
}

/** Runs `ip` inside `namespace`, or in this machine's own namespace without one. */
const ipIn = (namespace: string | undefined, ...args: string[]) =>
  namespace ? ip('netns', 'exec', namespace, 'ip', ...args) : ip(...args);

/** A veth pair between two ends, each moved to its namespace, addressed and up. */
async function link(left: LinkEnd, right: LinkEnd): Promise<void> {
  await ip('link', 'add', left.device, 'type', 'veth', 'peer', 'name', right.device);
  for (const end of [left, right]) {
    if (end.namespace) await ip('link', 'set', end.device, 'netns', end.namespace);
    await ipIn(end.namespace, 'addr', 'add', `${end.address}/30`, 'dev', end.device);
    await ipIn(end.namespace, 'link', 'set', end.device, 'up');
  }
}

async function freshDatabase(adminUrl: string, name: string): Promise<string> {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await client.query(`CREATE DATABASE ${name}`);
  } finally {
    await client.end();
  }
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

async function waitUntilReady(url: string, process: ChildProcess, timeoutMs = 90_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (process.exitCode !== null)
      throw new Error(`${url}: the process exited (${process.exitCode}) before it was ready`);
    if (
      await fetch(`${url}/health/ready`).then(
        (r) => r.ok,
        () => false,
      )
    )
      return;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  throw new Error(`${url} did not become ready within ${timeoutMs} ms`);
}

/**
 * Makes hosts `names` (two at most: the links between them are /30s numbered by position) for a system
 * named `name` (its database and exchange `recipes.<name>`), starts every service and a gateway on each
 * with the gateways sending to every host's instances, and resolves once all are ready.
 */
export async function startHosts({
  name,
  names,
  databaseUrl,
  amqpUrl,
}: {
  name: string;
  names: string[];
  databaseUrl: string;
  amqpUrl: string;
}): Promise<TestHosts> {
  const dir = join(tmpdir(), `${name}-hosts-${process.pid}`);
  mkdirSync(dir, { recursive: true });
  const { privateKey, publicKey } = generateKeyPairSync('ed25519', {
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
    publicKeyEncoding: { type: 'spki', format: 'pem' },
  });
  writeFileSync(join(dir, 'jwt-private.pem'), privateKey);
  writeFileSync(join(dir, 'jwt-public.pem'), publicKey);
  const DATABASE_URL = await freshDatabase(databaseUrl, name);
  // What an interrupted run left: the broker would refuse to declare its queues again otherwise.
  await removeExchangeFamily(amqpUrl, `recipes.${name}`);

  const made: { namespaces: string[]; devices: string[]; proxies: TcpProxy[]; processes: ChildProcess[] } = {
    namespaces: [],
    devices: [],
    proxies: [],
    processes: [],
  };
  const stop = async () => {
    for (const child of made.processes) child.kill('SIGTERM');
    await Promise.all(
      made.processes.map((child) =>
        child.exitCode === null && child.signalCode === null
          ? new Promise((resolve) => child.once('close', resolve))
          : undefined,
      ),
    );
    await Promise.all(made.proxies.map((proxy) => proxy.close()));
    for (const device of made.devices) await ip('link', 'del', device).catch(() => undefined);
    for (const namespace of made.namespaces) await ip('netns', 'del', namespace).catch(() => undefined);
    await dropDatabase(databaseUrl, name).catch(() => undefined);
    await removeExchangeFamily(amqpUrl, `recipes.${name}`).catch(() => undefined);
    rmSync(dir, { recursive: true, force: true });
  };

  try {
    const layout = names.map((hostName, i) => ({
      name: hostName,
      namespace: `${name.replaceAll('_', '-')}-${hostName}`,
      serverSide: `10.77.${i + 1}.1`,
      address: `10.77.${i + 1}.2`,
    }));
    for (const host of layout) {
      await ip('netns', 'add', host.namespace);
      made.namespaces.push(host.namespace);
      await ipIn(host.namespace, 'link', 'set', 'lo', 'up');
      const device = `rv-${host.name}0`;
      await link(
        { device, address: host.serverSide },
        { namespace: host.namespace, device: `rv-${host.name}1`, address: host.address },
      );
      made.devices.push(device);
    }
    // The hosts' links to each other: host i reaches host j at 10.77.<100+pair>.x.
    const peerAddress = new Map<string, string>();
    for (let i = 0; i < layout.length; i++) {
      for (let j = i + 1; j < layout.length; j++) {
        const [left, right] = [layout[i]!, layout[j]!];
        const subnet = `10.77.${100 + i * 10 + j}`;
        await link(
          { namespace: left.namespace, device: `rv-${left.name}${right.name}`, address: `${subnet}.1` },
          { namespace: right.namespace, device: `rv-${right.name}${left.name}`, address: `${subnet}.2` },
        );
        peerAddress.set(`${left.name}>${right.name}`, `${subnet}.2`);
        peerAddress.set(`${right.name}>${left.name}`, `${subnet}.1`);
      }
    }

    const hosts: TestHost[] = [];
    for (const host of layout) {
      const database = await createTcpProxy(DATABASE_URL, { listenOn: host.serverSide });
      const broker = await createTcpProxy(amqpUrl, { listenOn: host.serverSide });
      made.proxies.push(database, broker);
      // Where this host reaches a host: itself on loopback, another over their link.
      const addressFrom = (to: string) => (to === host.name ? '127.0.0.1' : peerAddress.get(`${host.name}>${to}`)!);
      const upstreams = Object.fromEntries(
        services
          .filter((s) => s.name !== 'gateway')
          .flatMap((s) =>
            upstreamVariables(s.name, {
              url: layout.map((to) => `http://${addressFrom(to.name)}:${s.port}`).join(','),
              // The owners' look-ups go to this host's own instance, as a cluster's Service would pick one.
              internalUrl: s.internalPort ? `http://127.0.0.1:${s.internalPort}` : undefined,
            }),
          ),
      );
      const processes: ChildProcess[] = [];
      for (const service of services) {
        const child = spawn('ip', ['netns', 'exec', host.namespace, process.execPath, ...serviceArgs(service.name)], {
          stdio: ['ignore', 'ignore', 'inherit'],
          env: {
            ...process.env,
            ...allocatorSettings,
            ...upstreams,
            HOST: '0.0.0.0',
            PORT: String(service.port),
            METRICS_PORT: String(service.metricsPort),
            ...(service.internalPort ? { INTERNAL_PORT: String(service.internalPort) } : {}),
            // The gateways of every host are the services' peers: the 10.77/16 network.
            TRUST_PROXY: service.name === 'gateway' ? 'none' : 'loopback,10.77.0.0/16',
            DATABASE_URL: database.url,
            AMQP_URL: broker.url,
            EVENTS_EXCHANGE: `recipes.${name}`,
            LOG_LEVEL: 'warn',
            RATE_LIMIT_ENABLED: 'false',
            COMMENT_LIMIT_PER_MINUTE: '100000',
            NOTIFICATION_BUDGET_PER_HOUR: '100000',
            JWT_PUBLIC_KEY_FILE: join(dir, 'jwt-public.pem'),
            ...(service.name === 'users' ? { JWT_PRIVATE_KEY_FILE: join(dir, 'jwt-private.pem') } : {}),
          },
        });
        processes.push(child);
        made.processes.push(child);
      }
      const urlOf = (service: string) => `http://${host.address}:${services.find((s) => s.name === service)!.port}`;
      hosts.push({
        name: host.name,
        address: host.address,
        urlOf,
        cutFromServers: () => {
          database.cut();
          broker.cut();
        },
        restoreServers: () => {
          database.restore();
          broker.restore();
        },
        cutFrom: (other) =>
          ipIn(host.namespace, 'link', 'set', `rv-${host.name}${other.name}`, 'down').then(() => undefined),
        healFrom: (other) =>
          ipIn(host.namespace, 'link', 'set', `rv-${host.name}${other.name}`, 'up').then(() => undefined),
        killAll: () => {
          for (const child of processes) child.kill('SIGKILL');
        },
      });
      await Promise.all(services.map((service, i) => waitUntilReady(urlOf(service.name), processes[i]!)));
    }
    return { hosts, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}
