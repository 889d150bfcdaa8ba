// The processes that make up the system, and the ports each listens on in development: its API, its
// routes for the other services where it has some, and its Prometheus metrics (also each service's
// config defaults). The gateway moves to `backPort` when the front (scripts/front.mjs) takes its port.
export const services = [
  { name: 'users', port: 3001, internalPort: 3101, metricsPort: 9101 },
  { name: 'content', port: 3002, internalPort: 3102, metricsPort: 9102 },
  { name: 'comments', port: 3003, internalPort: 3103, metricsPort: 9103 },
  { name: 'collections', port: 3004, internalPort: 3104, metricsPort: 9104 },
  { name: 'notifications', port: 3005, internalPort: 3105, metricsPort: 9105 },
  { name: 'gateway', port: 3000, backPort: 3006, metricsPort: 9100 },
];

/**
 * glibc's allocator settings for every service process (read as a process starts; one set by the operator
 * wins). Two arenas rather than one for each thread that ever allocated (V8's GC helpers, libuv's pool), and
 * a fixed mmap threshold, so that blocks of 128 KiB and more always come from mmap and go back when freed
 * instead of raising the threshold and leaving holes in the heap. A process keeps about 10 MB less resident
 * after the bench's load; after a focused load of JSON bodies up to 256 KB with gzip and scrypt on libuv's
 * threads, 215 - 236 MB against 311 - 351 MB without (bench/micro/allocator.mjs;
 * docs/decisions/0005-allocator-settings.md). deploy/Dockerfile sets the same.
 */
export const allocatorSettings = {
  GLIBC_TUNABLES: process.env.GLIBC_TUNABLES ?? 'glibc.malloc.arena_max=2:glibc.malloc.mmap_threshold=131072',
};

/**
 * V8's settings for every service process, on its command line: Node takes no flag of this kind from
 * NODE_OPTIONS. Allocation-site pretenuring off: after a full collection under load, V8 began to allocate
 * some sites' objects straight in the old generation, and their young fields then survived every scavenge
 * through them, until the next full collection. Under a recipe's comment listing at 100 connections, the
 * comments service kept 7.2 MB alive at each scavenge (a 5.2 ms pause, 8.6 ms of the helper threads), and
 * 0.70 MB (1.1 ms, 0.67 ms) with it off (docs/decisions/0006-no-allocation-site-pretenuring.md).
 * deploy/Dockerfile gives the same.
 */
export const nodeFlags = ['--no-allocation-site-pretenuring'];

/** What Node runs for the service `name`, after its own path: V8's settings, then the service's entry. */
export const serviceArgs = (name) => [...nodeFlags, `services/${name}/dist/server.js`];

/**
 * How a process finds a service: the gateway its public port (USERS_URL), services its internal one
 * (USERS_INTERNAL_URL).
 */
export function upstreamVariables(service, { url, internalUrl }) {
  const name = service.toUpperCase();
  return [[`${name}_URL`, url], ...(internalUrl ? [[`${name}_INTERNAL_URL`, internalUrl]] : [])];
}
