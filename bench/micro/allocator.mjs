// What glibc's allocator settings (GLIBC_TUNABLES, scripts/services.mjs) change in a process's memory after
// load: a child process serves and sends HTTP requests with JSON bodies of 1 KB to 256 KB, 50 at a time,
// with gzip and scrypt on libuv's threads meanwhile (each thread that allocates gets an arena of its own),
// then collects garbage and reports its resident memory; with the settings and with none, alternating,
// each in a fresh process. Run alone: `nice node bench/micro/allocator.mjs`.
import { spawnSync } from 'node:child_process';

const SETTINGS = 'glibc.malloc.arena_max=2:glibc.malloc.mmap_threshold=131072';

if (process.argv[2] === 'load') {
  const http = await import('node:http');
  const { gzip, scrypt } = await import('node:crypto').then(async (crypto) => ({
    ...(await import('node:zlib')),
    scrypt: crypto.scrypt,
  }));
  const { promisify } = await import('node:util');
  const server = http.createServer((request, response) => {
    const chunks = [];
    request.on('data', (chunk) => chunks.push(chunk));
    request.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString());
      response.setHeader('content-type', 'application/json');
      response.end(JSON.stringify({ echoed: body.items.length, items: body.items.slice(0, 10) }));
    });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address();
  const agent = new http.Agent({ keepAlive: true, maxSockets: 50 });
  const send = (size) =>
    new Promise((resolve, reject) => {
      const body = JSON.stringify({
        items: Array.from({ length: size }, (_, i) => ({ id: i, name: `item ${i}`, at: new Date().toISOString() })),
      });
      const request = http.request(
        { host: '127.0.0.1', port, method: 'POST', path: '/', agent, headers: { 'content-type': 'application/json' } },
        (response) => {
          response.resume();
          response.on('end', resolve);
        },
      );
      request.on('error', reject);
      request.end(body);
    });
  const sizes = [10, 100, 1000, 4000]; // about 0.6, 6, 60 and 250 KB
  for (let batch = 0; batch < 50; batch += 1) {
    await Promise.all([
      ...Array.from({ length: 50 }, (_, i) => send(sizes[(batch + i) % sizes.length])),
      ...Array.from({ length: 4 }, () => promisify(gzip)(Buffer.alloc(200_000, batch))),
      promisify(scrypt)('password', 'salt', 64),
    ]);
  }
  agent.destroy();
  server.close();
  globalThis.gc();
  await new Promise((resolve) => setTimeout(resolve, 500));
  console.log((process.memoryUsage().rss / 1024 / 1024).toFixed(1));
} else {
  const results = { 'with the settings': [], 'without (empty)': [] };
  for (let round = 0; round < 3; round += 1) {
    for (const [label, value] of [
      ['with the settings', SETTINGS],
      ['without (empty)', ''],
    ]) {
      const run = spawnSync(process.execPath, ['--expose-gc', new URL(import.meta.url).pathname, 'load'], {
        env: { ...process.env, GLIBC_TUNABLES: value },
        encoding: 'utf8',
      });
      results[label].push(run.stdout.trim());
    }
  }
  for (const [label, rss] of Object.entries(results))
    console.log(`${label.padEnd(18)} ${rss.join(' ')} MB resident after the load`);
}
