import { randomUUID } from 'node:crypto';
import { BODY_LIMIT_BYTES } from '@recipes/http';
import { eventually } from '@recipes/testing';
import fc from 'fast-check';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StartedSystem } from '../scripts/system.mjs';
import { startTestSystem } from './support/system.js';
import { type Fingerprint, settledFingerprint, withDatabase } from './support/database.js';
import {
  type Defect,
  describeRequest,
  type FuzzRequest,
  generators,
  IDEMPOTENCY_KEY,
} from './support/fuzz-requests.js';
import { nestedJson } from './support/hostile.js';
import { expectProblem, jsonClient, type RawClient, rawClient } from './support/http.js';
import { logOf } from './support/logs.js';
import { type Operation, publicOperations } from './support/openapi.js';
import { seedWorld, type World } from './support/world.js';

/**
 * Malformed and hostile requests, generated from the gateway's API document, against every public
 * operation of the running system, with and without an Idempotency-Key. Whatever comes (bodies nested
 * 30,000 levels deep, thousands of keys wide, every key repeated), the answer is never a 5xx, every error is
 * problem+json, nothing is logged as an error, and a request that must be refused is refused without changing
 * a single row but the record of its refusal under its key.
 */
const SYSTEM = 'recipes_fuzz';
const SEED = Number(process.env.FUZZ_SEED ?? 20_261_122);
const REQUESTS = 10_000;
const BATCH = 100;
const CONNECTIONS = 16;

let system: StartedSystem;
let client: RawClient;
let world: World;
let operations: Operation[];
let before: Fingerprint;

beforeAll(async () => {
  system = await startTestSystem({
    name: SYSTEM,
    portOffset: 3100,
    // Every limit out of the way, so that the requests reach validation.
    env: {
      RATE_LIMIT_ENABLED: 'false',
      LOGIN_LIMIT_PER_ADDRESS: '1000000',
      LOGIN_FAILURES_PER_USERNAME_AND_ADDRESS: '1000000',
      LOGIN_FAILURES_PER_ADDRESS: '1000000',
      REGISTER_LIMIT_PER_ADDRESS: '1000000',
      COMMENT_LIMIT_PER_MINUTE: '1000000',
      // PostgreSQL's connections are shared with every other system on the machine: a small pool each.
      DATABASE_POOL_MAX: '4',
    },
    // Kept, to look for errors: every process logs warnings and errors, collections its requests as well.
    logs: 'pipe',
    envFor: (service): Record<string, string> => (service === 'collections' ? { LOG_LEVEL: 'info' } : {}),
  });
  const gateway = system.urlOf('gateway');
  client = rawClient(gateway, CONNECTIONS);
  world = await seedWorld(jsonClient(`${gateway}/api`), 'fuzz');
  operations = await publicOperations(gateway);
  before = await withDatabase(system.databaseUrl, (db) => settledFingerprint(db));
}, 90_000);
afterAll(async () => {
  client?.close();
  await system?.stop();
});

const exercised = new Map<string, number>();
const defectsSent = new Map<Defect, number>();
let sent = 0;
/** Answers to requests sent with an Idempotency-Key, by status. */
const keyed = new Map<number, number>();

/** What the system must do with every request, whatever it was. */
async function sendAndCheck(request: FuzzRequest) {
  const response = await client.send(request);
  sent += 1;
  exercised.set(request.operation, (exercised.get(request.operation) ?? 0) + 1);
  if (request.defect) defectsSent.set(request.defect, (defectsSent.get(request.defect) ?? 0) + 1);
  const context = `${describeRequest(request)} → ${response.status} ${JSON.stringify(response.headers)} ${response.text.slice(0, 300)}`;
  expect(response.status, context).toBeLessThan(500);
  expect(response.headers['x-request-id'], context).toBeTruthy();
  if (response.status >= 400) expectProblem(response, undefined, context);
  if (request.mutating) expect(response.status, `not refused: ${context}`).toBeGreaterThanOrEqual(400);
  if (request.defect === 'nested too deep') {
    expectProblem(response, 400, context);
    expect(JSON.parse(response.text), context).toMatchObject({
      code: 'VALIDATION_ERROR',
      detail: expect.stringContaining('nested too deeply'),
    });
  }
  if (request.headers?.[IDEMPOTENCY_KEY] !== undefined)
    keyed.set(response.status, (keyed.get(response.status) ?? 0) + 1);
}

describe(`fuzzing every public operation through the gateway (seed ${SEED}; FUZZ_SEED to change it)`, () => {
  it(`answers ${REQUESTS} malformed and hostile requests without a 5xx, with problem+json for every error, refusing every mutating one`, async () => {
    const { requestFor, defectsOf } = generators(world, SYSTEM);
    expect(operations.length).toBeGreaterThan(0);
    for (const operation of operations) {
      if (operation.method !== 'GET') expect(defectsOf(operation), operation.key).not.toEqual([]);
    }
    const batch = fc.array(fc.oneof(...operations.map(requestFor)), { minLength: BATCH, maxLength: BATCH });
    const started = Date.now();
    try {
      await fc.assert(
        fc.asyncProperty(batch, async (requests) => {
          await Promise.all(requests.map(sendAndCheck));
        }),
        { seed: SEED, numRuns: REQUESTS / BATCH, endOnFailure: true },
      );
    } catch (error) {
      throw new Error(`Fuzzing failed; reproduce with FUZZ_SEED=${SEED}\n${(error as Error).message}`, {
        cause: error,
      });
    }
    console.log(`fuzz: ${sent} requests in ${Date.now() - started} ms (seed ${SEED})`);
    expect(sent).toBeGreaterThanOrEqual(REQUESTS);
  }, 180_000);

  it('exercised every operation in the API document, every kind of defect, and Idempotency-Key to its refusals', () => {
    const missing = operations
      .filter((operation) => (exercised.get(operation.key) ?? 0) < 50)
      .map((operation) => operation.key);
    expect(missing, 'operations sent fewer than 50 requests').toEqual([]);
    const { defectsOf } = generators(world, SYSTEM);
    const kinds = new Set(operations.flatMap(defectsOf));
    for (const kind of kinds) expect(defectsSent.get(kind) ?? 0, kind).toBeGreaterThan(0);
    // Refused by the key's own check (400 malformed) and by the routes (401, 404).
    console.log(`fuzz: answers to requests with an Idempotency-Key: ${JSON.stringify(Object.fromEntries(keyed))}`);
    for (const status of [400, 401, 404])
      expect(keyed.get(status) ?? 0, `keyed requests answered ${status}`).toBeGreaterThan(0);
  });

  it('logged no error in any process', () => {
    const errors = system.processes.flatMap((process) =>
      logOf(process).filter((line) => line.level === 'error' || line.level === 'fatal'),
    );
    expect(errors.map((line) => JSON.stringify(line).slice(0, 500))).toEqual([]);
  });

  it('left every table of every service as it was, but for the refusals kept under an Idempotency-Key', async () => {
    const { after, keptStatuses } = await withDatabase(system.databaseUrl, async (db) => ({
      after: await settledFingerprint(db),
      keptStatuses: await keptRefusals(db),
    }));
    expect(Object.keys(before).length).toBeGreaterThan(10);
    const isKeyTable = (table: string) => table.endsWith('.idempotency_keys');
    const withoutKeys = (fingerprint: Fingerprint) =>
      Object.fromEntries(Object.entries(fingerprint).filter(([table]) => !isKeyTable(table)));
    expect(withoutKeys(after)).toEqual(withoutKeys(before));
    // Before the fuzz the world's own requests kept nothing (it sends no key); a refusal a key keeps is a 4xx.
    expect(Object.keys(after).filter(isKeyTable).length).toBeGreaterThan(0);
    expect(keptStatuses.filter((status) => status < 400 || status >= 500)).toEqual([]);
  });
});

/** The statuses of every response kept under an Idempotency-Key, in every service's schema. */
async function keptRefusals(db: pg.Client): Promise<number[]> {
  const { rows: tables } = await db.query<{ schema: string }>(
    `SELECT table_schema AS schema FROM information_schema.tables WHERE table_name = 'idempotency_keys'`,
  );
  const statuses: number[] = [];
  for (const { schema } of tables) {
    const { rows } = await db.query<{ status: number }>(`SELECT status FROM "${schema}".idempotency_keys`);
    statuses.push(...rows.map((row) => row.status));
  }
  return statuses;
}

/**
 * The body of the report this guards against: 60 KB nested 30,000 levels deep, to an operation whose
 * Idempotency-Key fingerprint used to walk the body by recursion before validation: a stack overflow, a 500
 * and a stack trace in the log on every request. Now 400 before anything walks it, with a key or without.
 */
describe('a body nested 30,000 levels deep', () => {
  const body = `{"name":"Deep","description":"x","nested":${nestedJson(29_999, 'arrays', '')}}`;

  it.each([
    ['with an Idempotency-Key', { 'idempotency-key': `deep-${randomUUID()}` }],
    ['without one', {}],
  ])(
    'to POST /api/collections %s is 400 VALIDATION_ERROR, logged without an error or a stack trace',
    async (_name, keyHeader) => {
      expect(body.length).toBeGreaterThan(60_000);
      expect(body.length).toBeLessThanOrEqual(BODY_LIMIT_BYTES);
      const requestId = `deep-body-${randomUUID()}`;
      const response = await client.send({
        method: 'POST',
        path: '/api/collections',
        headers: {
          authorization: `Bearer ${world.ada.token}`,
          'content-type': 'application/json',
          'x-request-id': requestId,
          ...keyHeader,
        },
        body: Buffer.from(body),
      });
      expectProblem(response, 400, response.text);
      expect(JSON.parse(response.text)).toMatchObject({
        code: 'VALIDATION_ERROR',
        detail: expect.stringContaining('nested too deeply'),
      });

      // The service's line for the finished request comes after anything it logged while handling it.
      const collections = system.process('collections')!;
      const lines = await eventually(async () => {
        const ofRequest = logOf(collections).filter((line) => line.requestId === requestId);
        return ofRequest.some((line) => line.msg === 'request completed') ? ofRequest : undefined;
      }, 10_000);
      expect(lines.find((line) => line.msg === 'request completed')?.res?.statusCode).toBe(400);
      expect(lines.filter((line) => line.level === 'error' || line.err?.stack !== undefined)).toEqual([]);
    },
  );
});
