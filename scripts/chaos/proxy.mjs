// A TCP proxy between one service instance and PostgreSQL or RabbitMQ that can delay bytes and cut
// connections, so a fault reaches that instance alone while the server keeps serving everyone else.
import { connect, createServer } from 'node:net';

/**
 * Forwards `from` to `to`, each chunk `delayMs()` late. Chunks keep their order even when the delay
 * shrinks meanwhile: a later chunk never leaves before an earlier one.
 */
function forward(from, to, delayMs) {
  const queue = [];
  let lastDue = 0;
  let timer;
  const flush = () => {
    timer = undefined;
    while (queue.length > 0 && queue[0].due <= Date.now()) to.write(queue.shift().chunk);
    if (queue.length > 0) timer = setTimeout(flush, queue[0].due - Date.now());
  };
  from.on('data', (chunk) => {
    const delay = delayMs();
    if (delay === 0 && queue.length === 0) {
      to.write(chunk);
      return;
    }
    lastDue = Math.max(lastDue, Date.now() + delay);
    queue.push({ chunk, due: lastDue });
    timer ??= setTimeout(flush, delay);
  });
  from.on('close', () => clearTimeout(timer));
}

/**
 * Listens on a spare local port and forwards to `target` (a URL: only its host and port count).
 * `url(original)` is `original` pointed at the proxy. `upstreamPorts()` are the local ports of the
 * proxy's connections to the server: the peer ports the server sees, e.g. to close them on the broker.
 */
export async function createFaultProxy(target) {
  const { hostname, port } = new URL(target);
  const pairs = new Set();
  let open = true;
  let latencyMs = 0;

  const server = createServer((client) => {
    if (!open) return client.destroy();
    const upstream = connect({ host: hostname, port: Number(port) });
    const pair = { client, upstream };
    pairs.add(pair);
    for (const socket of [client, upstream]) {
      socket.setNoDelay(true);
      socket.on('error', () => undefined);
      // Either end gone, the other goes too: neither protocol half-closes.
      socket.on('close', () => {
        pairs.delete(pair);
        client.destroy();
        upstream.destroy();
      });
    }
    forward(client, upstream, () => latencyMs);
    forward(upstream, client, () => latencyMs);
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const proxyPort = server.address().port;
  const dropAll = () => {
    for (const { client, upstream } of pairs) {
      client.destroy();
      upstream.destroy();
    }
  };

  return {
    url(original) {
      const url = new URL(original);
      url.hostname = '127.0.0.1';
      url.port = String(proxyPort);
      return url.toString();
    },
    /** Drops every connection and refuses new ones: to the instance, the server seems to be gone. */
    cut() {
      open = false;
      dropAll();
    },
    /** Each chunk, either way, this much late (0: none). */
    setLatency(ms) {
      latencyMs = ms;
    },
    /** Accepts connections again, without delay. */
    restore() {
      open = true;
      latencyMs = 0;
    },
    upstreamPorts: () => [...pairs].map(({ upstream }) => upstream.localPort).filter((p) => p !== undefined),
    close() {
      open = false;
      dropAll();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}
