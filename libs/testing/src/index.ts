import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { inject } from 'vitest';
import { dropDatabase } from './cleanup.js';

export { brokerAdmin } from './broker-admin.js';
export { expectBearerChallenge, parseBearerChallenge } from './challenge.js';
export {
  dropDatabase,
  exchangeFamily,
  type ExchangeFamilyOptions,
  queueFamily,
  removeExchangeFamily,
  serviceNames,
} from './cleanup.js';
export { createTcpProxy, type TcpProxy } from './tcp-proxy.js';
export {
  type LocalPushService,
  type LocalSubscription,
  type PushAnswer,
  type ReceivedPush,
  startLocalPushService,
} from './push-service.js';
export { type ClusterNode, type RabbitCluster, startRabbitCluster } from './rabbit-cluster.js';
export { explainGenericPlan, explainQuery, type PlanNode, planNodes } from './explain.js';
export { type CursorPage, pagesAtOdds, readWhileWriting, walkFaults, walkWhileChanging } from './pages.js';
export {
  type ContainerIds,
  freePort,
  LOCAL_AMQP_URL,
  LOCAL_DATABASE_URL,
  resolveTestInfrastructure,
} from './infrastructure.js';
export { type SharedServer, type SharedServerName, sharedServer } from './servers.js';

/** A short random suffix, safe in database, exchange and queue names. */
export function uniqueSuffix(): string {
  return randomBytes(5).toString('hex');
}

/** A name no other test file uses, e.g. for an exchange or queue. */
export function uniqueName(prefix: string): string {
  return `test.${prefix}.${uniqueSuffix()}`;
}

export function amqpUrl(): string {
  return inject('amqpUrl');
}

export interface TestDatabase {
  url: string;
  drop(): Promise<void>;
}

function withDatabase(url: string, database: string): string {
  const parsed = new URL(url);
  parsed.pathname = `/${database}`;
  return parsed.toString();
}

export interface ReservedTestDatabase extends TestDatabase {
  /** Makes the database, brand-new and empty. */
  create(): Promise<void>;
}

/** The name and URL of a database no other test file uses, known at once; `create` makes it later. */
export function reserveTestDatabase(): ReservedTestDatabase {
  const adminUrl = inject('databaseUrl');
  const name = `test_${uniqueSuffix()}`;
  return {
    url: withDatabase(adminUrl, name),
    async create() {
      const admin = new pg.Client({ connectionString: adminUrl });
      await admin.connect();
      try {
        await admin.query(`CREATE DATABASE ${name}`);
      } finally {
        await admin.end();
      }
    },
    drop: () => dropDatabase(adminUrl, name),
  };
}

/** A brand-new, empty database for one test file; `drop` removes it even while connections remain. */
export async function createTestDatabase(): Promise<TestDatabase> {
  const { create, ...database } = reserveTestDatabase();
  await create();
  return database;
}

/** Polls `check` until it returns a value other than undefined, or fails after `timeoutMs`. */
export async function eventually<T>(
  check: () => Promise<T | undefined>,
  timeoutMs = 5_000,
  intervalMs = 25,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}
