// Round trips to PostgreSQL, counted on the wire: a proxy in front of the server, one port per part of
// the system, that reads what each client sends. A round trip is a message the client then waits on:
// a simple Query, or the Sync that ends an extended-protocol statement (Parse, Bind, Execute), as
// node-postgres sends one statement at a time. Each is counted under its statement's text, so the
// figures read like pg_stat_statements' calls, which this server cannot load without a restart
// (shared_preload_libraries). The proxy costs CPU and latency of its own: a phase that counts measures
// nothing else.
import { connect, createServer } from 'node:net';

// Startup-phase requests that come before the startup message itself (they have no type byte).
const SSL_REQUEST = 80877103;
const GSSENC_REQUEST = 80877104;
const [PARSE, BIND, SYNC, QUERY] = ['P', 'B', 'S', 'Q'].map((type) => type.charCodeAt(0));

/** The NUL-terminated string at `offset`, and the offset after it. */
function cstring(buffer, offset) {
  const end = buffer.indexOf(0, offset);
  return [buffer.toString('utf8', offset, end), end + 1];
}

/**
 * A reader of one connection's client-to-server bytes, calling `onRoundTrip(statement)` for each round
 * trip: its text, or `(sync)` for a Sync that follows no statement.
 */
function roundTripReader(onRoundTrip) {
  let pending = Buffer.alloc(0);
  let started = false;
  const prepared = new Map(); // statement name → text, per connection as the protocol has it
  let statement;
  return (chunk) => {
    pending = pending.length === 0 ? chunk : Buffer.concat([pending, chunk]);
    let offset = 0;
    while (pending.length - offset >= 5) {
      if (!started) {
        if (pending.length - offset < 8) break;
        const length = pending.readInt32BE(offset);
        if (pending.length - offset < length) break;
        const code = pending.readInt32BE(offset + 4);
        started = code !== SSL_REQUEST && code !== GSSENC_REQUEST;
        offset += length;
        continue;
      }
      const type = pending[offset];
      const length = pending.readInt32BE(offset + 1);
      if (pending.length - offset < 1 + length) break;
      const body = offset + 5;
      if (type === PARSE) {
        const [name, at] = cstring(pending, body);
        statement = cstring(pending, at)[0];
        prepared.set(name, statement);
      } else if (type === BIND) {
        const [, at] = cstring(pending, body); // the portal's name, then the statement's
        statement = prepared.get(cstring(pending, at)[0]) ?? statement;
      } else if (type === SYNC) {
        onRoundTrip(statement ?? '(sync)');
        statement = undefined;
      } else if (type === QUERY) {
        onRoundTrip(cstring(pending, body)[0]);
      }
      offset += 1 + length;
    }
    pending = pending.subarray(offset);
  };
}

/** A statement as one line, short enough for a table. */
const oneLine = (text) => {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > 110 ? `${line.slice(0, 107)}…` : line;
};

/**
 * A counting proxy to the PostgreSQL server of `databaseUrl`, listening on one port for each of `parts`.
 * `urlOf(part)`: `databaseUrl` through that part's port. `take()`: the round trips counted since the last
 * take, by part and by statement (`{ part: { statement: count } }`), with how long that was.
 */
export async function startRoundTripCounter(databaseUrl, parts) {
  const target = new URL(databaseUrl);
  let counts = {};
  let since = performance.now();
  const sockets = new Set();
  const servers = new Map();
  for (const part of parts) {
    const server = createServer((client) => {
      const upstream = connect({ host: target.hostname, port: Number(target.port || 5432) });
      const read = roundTripReader((text) => {
        const statements = (counts[part] ??= {});
        const key = oneLine(text);
        statements[key] = (statements[key] ?? 0) + 1;
      });
      for (const socket of [client, upstream]) {
        // Without it Nagle's algorithm would hold back the small writes of every other statement.
        socket.setNoDelay(true);
        sockets.add(socket);
        socket.on('close', () => sockets.delete(socket));
        socket.on('error', () => undefined);
      }
      client.on('data', read);
      client.pipe(upstream).pipe(client);
      client.on('close', () => upstream.destroy());
      upstream.on('close', () => client.destroy());
    });
    await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
    servers.set(part, server);
  }
  return {
    urlOf(part) {
      const url = new URL(databaseUrl);
      url.hostname = '127.0.0.1';
      url.port = String(servers.get(part).address().port);
      return url.toString();
    },
    take() {
      const taken = { seconds: (performance.now() - since) / 1000, counts };
      counts = {};
      since = performance.now();
      return taken;
    },
    async close() {
      for (const socket of sockets) socket.destroy();
      await Promise.all([...servers.values()].map((server) => new Promise((resolve) => server.close(resolve))));
    },
  };
}
