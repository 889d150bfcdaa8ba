// What the gateway's side of N open event streams costs when they go to the service over one HTTP/2
// connection (h2c, libs/http/src/cleartext-http2.ts) and over one HTTP/1.1 connection each: the client's
// open sockets and its memory after GC, per stream. The server (a child process, Fastify on
// `dualProtocolServer` as a service runs it) holds every stream open. Each way in a fresh client process.
// Run alone: `nice node bench/micro/stream-connections.mjs`.
import { fork } from 'node:child_process';
import { readdirSync } from 'node:fs';
import http from 'node:http';
import http2 from 'node:http2';

const STREAMS = 2000;
const [role, mode, port] = process.argv.slice(2);

if (role === 'server') {
  const { dualProtocolServer } = await import('@recipes/http');
  const { default: Fastify } = await import('fastify');
  const app = Fastify({ serverFactory: dualProtocolServer });
  app.get('/stream', (_request, reply) => {
    reply.raw.writeHead(200, { 'content-type': 'text/event-stream' });
    reply.raw.write(': open\n\n');
  });
  await app.listen({ port: 0, host: '127.0.0.1' });
  process.send(app.server.address().port);
} else if (role === 'client') {
  const fds = () => readdirSync('/proc/self/fd').length;
  const before = { fds: fds(), ...(globalThis.gc(), process.memoryUsage()) };
  const opened = [];
  if (mode === 'http2') {
    const session = http2.connect(`http://127.0.0.1:${port}`, { settings: { initialWindowSize: 65_535 } });
    for (let i = 0; i < STREAMS; i += 1) {
      opened.push(new Promise((resolve) => session.request({ ':path': '/stream' }).once('data', resolve)));
    }
  } else {
    const agent = new http.Agent({ keepAlive: true, maxSockets: Infinity });
    for (let i = 0; i < STREAMS; i += 1) {
      opened.push(
        new Promise((resolve) =>
          http.get({ host: '127.0.0.1', port, path: '/stream', agent }, (response) => response.once('data', resolve)),
        ),
      );
    }
  }
  await Promise.all(opened);
  globalThis.gc();
  const after = { fds: fds(), ...process.memoryUsage() };
  const kb = (bytes) => (bytes / 1024 / STREAMS).toFixed(1);
  console.log(
    `${mode.padEnd(8)} ${STREAMS} streams: ${after.fds - before.fds} sockets, ` +
      `${kb(after.rss - before.rss)} KB RSS and ${kb(after.heapUsed - before.heapUsed)} KB heap a stream`,
  );
  process.exit(0);
} else {
  for (const way of ['http2', 'http1', 'http2', 'http1']) {
    const server = fork(new URL(import.meta.url).pathname, ['server'], { stdio: 'inherit' });
    const serverPort = await new Promise((resolve) => server.once('message', resolve));
    const client = fork(new URL(import.meta.url).pathname, ['client', way, String(serverPort)], {
      execArgv: ['--expose-gc'],
      stdio: 'inherit',
    });
    await new Promise((resolve) => client.once('exit', resolve));
    server.kill();
  }
}
