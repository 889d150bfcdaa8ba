import { type ChildProcess, spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { dropDatabase, eventually, removeExchangeFamily } from '@recipes/testing';
import { afterAll, beforeAll, describe, expect, it, inject } from 'vitest';
import { allocatorSettings, nodeFlags, services } from '../scripts/services.mjs';
import { expectProblem, type JsonCall, jsonClient } from './support/http.js';

/**
 * `npm start` itself (scripts/start.mjs), moved by PORT_OFFSET onto ports of its own, with a database and
 * an exchange of its own: every process on its port, each writing its own log lines, HAProxy in front of the
 * gateway (`npm test` installs it), and all of them stopped by one signal to the supervisor.
 */
const NAME = 'recipes_start';
const PORT_OFFSET = 5100;
const exchange = `recipes.${NAME}`;
const urlOf = (service: string) => `http://127.0.0.1:${services.find((s) => s.name === service)!.port + PORT_OFFSET}`;
const gatewayBackPort = services.find((s) => s.name === 'gateway')!.backPort! + PORT_OFFSET;
const ready = (service: string, url = urlOf(service)) =>
  fetch(`${url}/health/ready`).then(
    (r) => r.ok,
    () => false,
  );

/** Low enough to reach in a few calls; the owner's address is never the guesser's. */
const LOGIN_LIMITS = { LOGIN_FAILURES_PER_USERNAME_AND_ADDRESS: 2, LOGIN_FAILURES_PER_ADDRESS: 6 };

let supervisor: ChildProcess;
let exited: Promise<number | null>;
const lines: string[] = [];

async function removeTopology() {
  await removeExchangeFamily(inject('amqpUrl'), exchange);
  await dropDatabase(inject('databaseUrl'), NAME);
}

beforeAll(async () => {
  await removeTopology();
  const databaseUrl = new URL(inject('databaseUrl'));
  databaseUrl.pathname = `/${NAME}`;
  supervisor = spawn(process.execPath, ['scripts/start.mjs'], {
    env: {
      ...process.env,
      PORT_OFFSET: String(PORT_OFFSET),
      DATABASE_URL: databaseUrl.toString(),
      AMQP_URL: inject('amqpUrl'),
      EVENTS_EXCHANGE: exchange,
      LOG_LEVEL: 'info',
      ...Object.fromEntries(Object.entries(LOGIN_LIMITS).map(([name, value]) => [name, String(value)])),
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  exited = new Promise((resolve) => supervisor.once('exit', resolve));
  createInterface({ input: supervisor.stdout! }).on('line', (line) => lines.push(line));
  await eventually(
    async () => ((await Promise.all(services.map(({ name }) => ready(name)))).every(Boolean) ? true : undefined),
    50_000,
    200,
  );
}, 60_000);

/** Whether the service's port refuses connections: its process has stopped listening. */
const stopped = (service: string) =>
  fetch(`${urlOf(service)}/health/live`).then(
    () => false,
    () => true,
  );

/** Each process this test may read: its command line and the environment it started with. */
function runningProcesses() {
  return readdirSync('/proc')
    .filter((entry) => /^\d+$/.test(entry))
    .flatMap((pid) => {
      try {
        const environment = readFileSync(`/proc/${pid}/environ`, 'utf8')
          .split('\0')
          .map((entry) => entry.split(/=(.*)/s, 2) as [string, string]);
        const command = readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ');
        return [{ command, environment: new Map(environment) }];
      } catch {
        return []; // gone, or not ours to read
      }
    });
}

afterAll(async () => {
  if (supervisor?.exitCode === null) {
    supervisor.kill('SIGTERM');
    await exited;
  }
  // A service still finishing its shutdown would declare its queues again on the broker once they are deleted.
  await eventually(
    async () => ((await Promise.all(services.map(({ name }) => stopped(name)))).every(Boolean) ? true : undefined),
    20_000,
    200,
  );
  await removeTopology();
}, 30_000);

describe('npm start', () => {
  it('runs every service and the gateway on the moved ports, each writing its own JSON lines', async () => {
    const registered = await fetch(`${urlOf('gateway')}/api/auth/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: 'started_ada', password: 'correct horse' }),
    });
    expect(registered.status).toBe(201);
    const { user } = (await registered.json()) as { user: { id: string } };
    expect((await fetch(`${urlOf('users')}/api/users/${user.id}`)).status).toBe(200);

    // Raw mode: besides the supervisor's own `start:` lines, each is a process's JSON as it wrote it, with
    // no prefix that the supervisor would have added by reading and writing every line again.
    const entries = () =>
      lines
        .filter((line) => !line.startsWith('start: '))
        .map((line) => JSON.parse(line) as { service?: string; msg?: string; req?: { url?: string } });
    const completed = (service: string, url: string) =>
      entries().some((e) => e.service === service && e.msg === 'request completed' && e.req?.url === url);
    await eventually(async () =>
      completed('gateway', '/api/auth/register') && completed('users', `/api/users/${user.id}`) ? true : undefined,
    );
    expect(new Set(entries().map((e) => e.service))).toEqual(new Set(services.map((s) => s.name)));
  });

  /** The process `npm start` runs for each service, as /proc shows it. */
  const startedServices = () =>
    services.map(({ name, port, backPort }) => ({
      name,
      started: runningProcesses().find(
        ({ command, environment }) =>
          command.includes(`services/${name}/dist/server.js`) &&
          environment.get('PORT') === String((backPort ?? port) + PORT_OFFSET),
      ),
    }));

  it('runs every process with glibc’s allocator settings', () => {
    // glibc, parsing the tunables as the process starts, ends the string /proc shows after the first one.
    const [first] = allocatorSettings.GLIBC_TUNABLES.split(':');
    for (const { name, started } of startedServices()) {
      expect(started?.environment.get('GLIBC_TUNABLES'), name).toBe(first);
    }
  });

  it('runs every process with V8’s settings, before its script', () => {
    expect(nodeFlags.length).toBeGreaterThan(0);
    for (const { name, started } of startedServices()) {
      expect(started?.command, name).toContain(` ${nodeFlags.join(' ')} services/${name}/dist/server.js`);
    }
  });

  it('puts HAProxy on the gateway’s port, the gateway behind it, and passes the notification stream through', async () => {
    const front = runningProcesses().find(
      ({ command }) => command.startsWith('/usr/sbin/haproxy') && command.includes('recipes-front-'),
    );
    expect(front, 'an HAProxy of npm start').toBeDefined();
    // The gateway answers on its back port; the public one answers through HAProxy.
    expect(await ready('gateway', `http://127.0.0.1:${gatewayBackPort}`)).toBe(true);
    const registered = await fetch(`${urlOf('gateway')}/api/auth/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: 'fronted_bob', password: 'correct horse' }),
    });
    expect(registered.status).toBe(201);
    const { token } = (await registered.json()) as { token: string };
    // A stream is held past the reads' queue timeout (100 ms) and its first bytes come through.
    const stream = await fetch(`${urlOf('gateway')}/api/notifications/stream`, {
      headers: { authorization: `Bearer ${token}`, accept: 'text/event-stream' },
    });
    expect(stream.status).toBe(200);
    expect(stream.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const reader = stream.body!.getReader();
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect((await reader.read()).done).toBe(false);
    await reader.cancel();
  });

  it('hands the gateway each client’s own address through the front, and believes no client’s header', async () => {
    const api = `${urlOf('gateway')}/api`;
    const guesser = jsonClient(api, { localAddress: '127.61.0.9' });
    const owner = jsonClient(api, { localAddress: '127.61.0.1' });
    const login = (call: JsonCall, password: string, headers: Record<string, string> = {}) =>
      call('POST', '/auth/login', { username: 'started_ada', password }, undefined, headers);
    for (let i = 0; i < LOGIN_LIMITS.LOGIN_FAILURES_PER_USERNAME_AND_ADDRESS; i++)
      expect((await login(guesser, 'wrong password')).status).toBe(401);
    expectProblem((await login(guesser, 'correct horse')).raw, 429, 'the guesser, with the right password');
    // The owner logs in from another address: the guesser's failures counted against the guesser alone.
    expect((await login(owner, 'correct horse')).status).toBe(200);
    // Naming another address buys the guesser nothing, through the front or straight at the gateway's back port.
    const forged = { 'x-forwarded-for': '127.61.0.77', forwarded: 'for=127.61.0.77', 'x-real-ip': '127.61.0.77' };
    expectProblem((await login(guesser, 'correct horse', forged)).raw, 429, 'a forged header through the front');
    const direct = jsonClient(`http://127.0.0.1:${gatewayBackPort}/api`, { localAddress: '127.61.0.9' });
    expectProblem((await login(direct, 'correct horse', forged)).raw, 429, 'a forged header at the back port');

    // The request lines of the gateway and of the users service name each client, never the front.
    const loginLines = (service: string) =>
      lines
        .filter((line) => line.startsWith('{'))
        .map(
          (line) =>
            JSON.parse(line) as { service?: string; msg?: string; req?: { url?: string; remoteAddress?: string } },
        )
        .filter((e) => e.service === service && e.msg === 'request completed' && e.req?.url === '/api/auth/login');
    await eventually(async () => (loginLines('users').length >= 6 ? true : undefined));
    for (const service of ['gateway', 'users'])
      expect(new Set(loginLines(service).map((e) => e.req?.remoteAddress)), service).toEqual(
        new Set(['127.61.0.9', '127.61.0.1']),
      );
  });

  it('passes a burst of 200 reads at once on to the gateway, refusing none at the front', async () => {
    // The gateway's waiting room serves such a burst whole (test/overload.test.ts): the front must let it reach it.
    // Whatever answers, the gateway's carry its request id, HAProxy's own none.
    const answers = await Promise.all(
      Array.from({ length: 200 }, () =>
        fetch(`${urlOf('gateway')}/api/users/started_ada/recipes`).then(async (response) => {
          await response.arrayBuffer();
          return { status: response.status, fromGateway: response.headers.has('x-request-id') };
        }),
      ),
    );
    expect(answers.filter((answer) => !answer.fromGateway)).toEqual([]);
    expect(answers.filter((answer) => answer.status === 200).length).toBeGreaterThan(0);
  });

  it('stops every process on one SIGTERM to the supervisor', async () => {
    supervisor.kill('SIGTERM');
    await exited;
    // The supervisor passes the signal on and may be gone first: each service drains its connections (3 s at most).
    const stillUp = async () =>
      (await Promise.all(services.map(async ({ name }) => ((await ready(name)) ? [name] : [])))).flat();
    await eventually(async () => ((await stillUp()).length === 0 ? true : undefined), 15_000, 100);
  });
});
