import type { FastifyInstance } from 'fastify';
import { Redis } from 'ioredis';

interface WarnLogger {
  warn(object: object, message: string): void;
}

/**
 * The store that every instance of a service counts in, so that N instances grant a client one budget,
 * not N (docs/architecture.md §11): Redis, its keys under `prefix`. A command waits for no reconnect: while
 * Redis is away each one fails at once, and its caller decides whether that admits (a rate limit) or
 * refuses (a login).
 */
export interface SharedStore {
  redis: Redis;
  /** Before every key, so that systems sharing one Redis count apart. */
  prefix: string;
  close(): Promise<void>;
}

/** A command that has no answer within this long fails, as one to a Redis that is away does. */
const COMMAND_TIMEOUT_MS = 500;

/** How long a process starting waits for the store before it goes on without it (and counts as it is away). */
const READY_WAIT_MS = 2_000;

/** Connects to the shared store, waiting a moment for it: without a connection every command fails at once. */
export async function connectSharedStore({
  url,
  prefix,
  logger,
}: {
  url: string;
  prefix: string;
  logger: WarnLogger;
}): Promise<SharedStore> {
  const redis = new Redis(url, {
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    connectTimeout: 1_000,
    commandTimeout: COMMAND_TIMEOUT_MS,
  });
  // Once per outage rather than at every reconnect attempt.
  let away = false;
  redis.on('error', (err: Error) => {
    if (!away) logger.warn({ err }, 'the shared store is unavailable: limits count as it says until it is back');
    away = true;
  });
  redis.on('ready', () => (away = false));
  await new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, READY_WAIT_MS);
    redis.once('ready', () => {
      clearTimeout(timer);
      resolve();
    });
  });
  return {
    redis,
    prefix,
    close: async () => {
      await redis.quit().catch(() => redis.disconnect());
    },
  };
}

/** Where the shared store is: its URL (none: each instance counts in its own memory) and its keys' prefix. */
export interface SharedStoreSettings {
  url?: string | undefined;
  prefix: string;
}

/**
 * Where a service's parts find the shared store: they are made before the routes that open it (`sharedStoreFor`),
 * which put it here, and what they do later (an erasure forgetting a user's counts) reads it at each use. Empty until
 * then, and without a URL.
 */
export interface SharedStoreSlot {
  current: SharedStore | undefined;
}

/** An empty slot, for `sharedStoreFor` to fill. */
export const sharedStoreSlot = (): SharedStoreSlot => ({ current: undefined });

/** The shared store for `app`'s life (closed with it), or none when no URL is set; put in `slot` when given. */
export async function sharedStoreFor(
  app: FastifyInstance,
  { url, prefix }: SharedStoreSettings,
  slot?: SharedStoreSlot,
): Promise<SharedStore | undefined> {
  if (!url) return undefined;
  const store = await connectSharedStore({ url, prefix, logger: app.log });
  if (slot) slot.current = store;
  app.addHook('onClose', async () => {
    if (slot?.current === store) slot.current = undefined;
    await store.close();
  });
  return store;
}
