import { readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import amqp, { type Channel, type ChannelModel } from 'amqplib';
import { Redis } from 'ioredis';
import pg from 'pg';

/** Retry queues a consumer declares next to its queue: `<queue>.retry.1` to `<queue>.retry.4`. */
const RETRY_QUEUES = 4;

/**
 * Every service has a folder under services/ and, on an exchange, the queue `<exchange>.<service>`; a
 * publisher also declares the queues of the consumers of what it publishes, so any of them may exist.
 */
const servicesDir = fileURLToPath(new URL('../../../services', import.meta.url));
export const serviceNames: readonly string[] = readdirSync(servicesDir, { withFileTypes: true })
  .filter((entry) => entry.isDirectory())
  .map((entry) => entry.name)
  .sort();

/** A consumer's queue and those the consumer declares with it: its dead letters and its retry queues. */
export function queueFamily(queue: string): string[] {
  return [queue, `${queue}.dlq`, ...Array.from({ length: RETRY_QUEUES }, (_, i) => `${queue}.retry.${i + 1}`)];
}

export interface ExchangeFamilyOptions {
  /** Queues named otherwise than `<exchange>.<service>`, e.g. a test's own consumer queues; each with its family. */
  queues?: readonly string[];
  /** Services besides those under services/, e.g. a test's made-up service consuming on `<exchange>.<name>`. */
  services?: readonly string[];
}

/** The names `exchange` brings along: the exchange and its dead-letter exchange, and every service's queues on it. */
export function exchangeFamily(exchange: string, { queues = [], services = [] }: ExchangeFamilyOptions = {}) {
  const consumers = [...new Set([...serviceNames, ...services])].map((service) => `${exchange}.${service}`);
  return {
    exchanges: [exchange, `${exchange}.dlx`],
    queues: [...new Set([...consumers, ...queues].flatMap(queueFamily))],
  };
}

/**
 * Deletes `exchange`, its `.dlx` and every queue of its family (see `exchangeFamily`), whether they exist
 * or not. `broker` is an AMQP URL or an open connection. Rejects, naming them, when any could not be
 * deleted, so that a test file does not leave them behind unnoticed.
 */
export async function removeExchangeFamily(
  broker: string | ChannelModel,
  exchange: string,
  options: ExchangeFamilyOptions = {},
): Promise<void> {
  const connection = typeof broker === 'string' ? await amqp.connect(broker) : broker;
  const { exchanges, queues } = exchangeFamily(exchange, options);
  const failures: string[] = [];
  let channel: Channel | undefined;
  try {
    const deletions = [
      ...queues.map((name) => ['queue', name] as const),
      ...exchanges.map((name) => ['exchange', name] as const),
    ];
    for (const [kind, name] of deletions) {
      if (!channel) {
        channel = await connection.createChannel();
        channel.on('error', () => undefined); // reported below, through the rejected operation
      }
      try {
        if (kind === 'queue') await channel.deleteQueue(name);
        else await channel.deleteExchange(name);
      } catch (error) {
        failures.push(`${kind} ${name}: ${(error as Error).message}`);
        channel = undefined; // the broker closed it: the next deletion needs another
      }
    }
  } finally {
    await channel?.close().catch(() => undefined);
    if (typeof broker === 'string') await connection.close().catch(() => undefined);
  }
  if (failures.length > 0) throw new Error(`could not delete the topology of ${exchange}:\n${failures.join('\n')}`);
}

/** Drops database `name` on the server of `adminUrl`, if it exists, even while clients are still connected. */
export async function dropDatabase(adminUrl: string, name: string): Promise<void> {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    await client.query(`DROP DATABASE IF EXISTS ${client.escapeIdentifier(name)} WITH (FORCE)`);
  } finally {
    await client.end();
  }
}

/** The Redis the shared-limits tests count in (scripts/setup.mjs --redis starts one where none runs). */
export const TEST_REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

/** Runs `each` on every batch of keys under `prefix` in the Redis at `url`. */
async function eachRedisBatch(url: string, prefix: string, each: (redis: Redis, keys: string[]) => Promise<unknown>) {
  const redis = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 1 });
  try {
    await redis.connect();
    for (let cursor = '0'; ;) {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1000);
      if (keys.length > 0) await each(redis, keys);
      if (next === '0') break;
      cursor = next;
    }
  } finally {
    redis.disconnect();
  }
}

/** Deletes every key under `prefix` from the Redis at `url`: what a test's shared store left there. */
export async function removeRedisKeys(url: string, prefix: string): Promise<void> {
  await eachRedisBatch(url, prefix, (redis, keys) => redis.del(...keys));
}

/** Every key under `prefix` in the Redis at `url`, sorted: what a system's shared store holds now. */
export async function redisKeys(url: string, prefix: string): Promise<string[]> {
  const found: string[] = [];
  await eachRedisBatch(url, prefix, async (_redis, keys) => found.push(...keys));
  return found.sort();
}
