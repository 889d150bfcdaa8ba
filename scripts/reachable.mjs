// Whether a server answers at an address: for `npm start` and its set-up, which run before anything is installed
// (Node's own modules only).
import { connect } from 'node:net';

/** Whether something accepts a TCP connection at `url`'s host and port (`defaultPort` where it names none), within 2 s. */
export function reachable(url, defaultPort) {
  const { hostname, port } = new URL(url);
  return new Promise((done) => {
    const socket = connect({
      host: hostname.replace(/^\[|\]$/g, ''),
      port: Number(port || defaultPort),
      timeout: 2000,
    });
    socket.once('connect', () => done(socket.end() && true));
    socket.once('timeout', () => done(socket.destroy() && false));
    socket.once('error', () => done(false));
  });
}
