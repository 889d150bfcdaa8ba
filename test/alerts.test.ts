import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { once } from 'node:events';
import { eventually, freePort } from '@recipes/testing';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { StartedSystem } from '../scripts/system.mjs';
import { type JsonCall, jsonClient } from './support/http.js';
import { startTestSystem } from './support/system.js';

/**
 * The alert rules of deploy/prometheus/rules.yml, evaluated by a real Prometheus (Debian's prometheus
 * package, installed by `npm test` where missing) scraping every process of a running system. The
 * notifications consumer is stopped; the mention events comments publishes pile up in its queue, whose
 * depth comments reports; the queue's alert goes pending, as does the one of the process that no longer
 * answers its scrape.
 */
const name = 'recipes_alerts';
const rulesFile = fileURLToPath(new URL('../deploy/prometheus/rules.yml', import.meta.url));
const queue = `recipes.${name}.notifications`;

let system: StartedSystem;
let api: string;
let call: JsonCall;
let prometheus: ChildProcess | undefined;
let prometheusUrl: string;
let dataDir: string;

/**
 * Prometheus's configuration: every process of the system a target, its `service` label kept as the process exports it.
 */
function prometheusConfig(): string {
  const targets = system.processes.map((process) => ({
    targets: [new URL(process.metricsUrl).host],
    labels: { service: process.service },
  }));
  return JSON.stringify({
    global: { scrape_interval: '1s', scrape_timeout: '1s', evaluation_interval: '1s' },
    rule_files: [rulesFile],
    scrape_configs: [{ job_name: 'recipes', honor_labels: true, static_configs: targets }],
  });
}

async function startPrometheus(): Promise<void> {
  dataDir = mkdtempSync(join(tmpdir(), 'recipes-prometheus-'));
  const configFile = join(dataDir, 'prometheus.yml');
  writeFileSync(configFile, prometheusConfig()); // JSON is YAML
  const port = await freePort();
  prometheusUrl = `http://127.0.0.1:${port}`;
  const args = [
    `--config.file=${configFile}`,
    `--storage.tsdb.path=${join(dataDir, 'data')}`,
    `--web.listen-address=127.0.0.1:${port}`,
  ];
  const started = spawn('prometheus', args, { stdio: ['ignore', 'ignore', 'pipe'] });
  prometheus = started;
  const log: string[] = [];
  started.stderr?.on('data', (chunk: Buffer) => log.push(chunk.toString()));
  const failed = once(started, 'error').then(([error]) => {
    const missing = (error as { code?: string }).code === 'ENOENT';
    throw new Error(
      missing
        ? "prometheus is missing: install Debian's prometheus package (apt-get install prometheus)"
        : String(error),
    );
  });
  const exited = once(started, 'exit').then(([code]) => {
    throw new Error(`prometheus exited (${String(code)}):\n${log.join('')}`);
  });
  const ready = eventually(
    async () => ((await fetch(`${prometheusUrl}/-/ready`).catch(() => undefined))?.ok ? true : undefined),
    20_000,
    100,
  );
  await Promise.race([ready, failed, exited]);
}

async function stopPrometheus(): Promise<void> {
  if (prometheus && prometheus.exitCode === null && prometheus.signalCode === null) {
    const exited = once(prometheus, 'exit');
    prometheus.kill('SIGTERM');
    await exited;
  }
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
}

interface Alert {
  labels: Record<string, string>;
  state: 'pending' | 'firing';
}

async function alerts(): Promise<Alert[]> {
  const body = (await (await fetch(`${prometheusUrl}/api/v1/alerts`)).json()) as { data: { alerts: Alert[] } };
  return body.data.alerts;
}

/** The value of an instant query's single sample, or undefined when it has none. */
async function query(expression: string): Promise<number | undefined> {
  const response = await fetch(`${prometheusUrl}/api/v1/query?query=${encodeURIComponent(expression)}`);
  const body = (await response.json()) as { data: { result: Array<{ value: [number, string] }> } };
  const [sample] = body.data.result;
  return sample === undefined ? undefined : Number(sample.value[1]);
}

beforeAll(async () => {
  system = await startTestSystem({ name, portOffset: 5500 });
  api = `${system.urlOf('gateway')}/api`;
  call = jsonClient(api);
  await startPrometheus();
}, 60_000);
afterAll(async () => {
  await stopPrometheus();
  await system?.stop();
});

it('sees the queue of a stopped consumer grow, and its alert go pending', async () => {
  // Before any event reaches it, so no handler run of it stays in the rule's 5-minute window.
  await system.process('notifications')!.kill();
  // Barrier: Prometheus has scraped the empty queue from the publisher, and nothing alerts about it yet.
  await eventually(
    async () =>
      (await query(`recipes_event_queue_messages{queue="${queue}", service="comments"}`)) === 0 ? true : undefined,
    20_000,
    200,
  );
  expect((await alerts()).filter((alert) => alert.labels.alertname === 'EventConsumerStalled')).toEqual([]);

  const [ada, bob] = await Promise.all(
    ['alerts_ada', 'alerts_bob'].map(
      async (username) => (await call('POST', '/auth/register', { username, password: 'correct horse' })).body,
    ),
  );
  const recipe = await call(
    'POST',
    '/recipes',
    { title: 'Alerting', cameraModel: 'X100V', filmSimulation: 'Acros' },
    ada.token,
  );
  expect(recipe.status).toBe(201);
  for (let i = 0; i < 5; i += 1) {
    const comment = await call(
      'POST',
      `/recipes/${recipe.body.recipe.id}/comments`,
      { content: `Still there, @alerts_bob? (${i})` },
      ada.token,
    );
    expect(comment.status).toBe(201);
  }
  expect(bob.token).toEqual(expect.any(String));

  const stalled = await eventually(
    async () =>
      (await alerts()).find(
        (alert) => alert.labels.alertname === 'EventConsumerStalled' && alert.labels.queue === queue,
      ),
    30_000,
    250,
  );
  expect(stalled).toMatchObject({ state: 'pending', labels: { severity: 'page' } });
  // The alert may go pending on the first scrape that saw the queue grow: the five wait there in the end.
  await eventually(
    async () => (((await query(`recipes_event_queue_messages{queue="${queue}"}`)) ?? 0) >= 5 ? true : undefined),
    20_000,
    250,
  );
  const down = await eventually(
    async () =>
      (await alerts()).find(
        (alert) => alert.labels.alertname === 'ProcessDown' && alert.labels.service === 'notifications',
      ),
    30_000,
    250,
  );
  expect(down.state).toBe('pending');
  // Only the stopped process is down.
  expect(
    (await alerts()).filter((alert) => alert.labels.alertname === 'ProcessDown').map((alert) => alert.labels.service),
  ).toEqual(['notifications']);
}, 90_000);
