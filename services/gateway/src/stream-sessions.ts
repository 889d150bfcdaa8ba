import type { IncomingHttpHeaders, OutgoingHttpHeaders } from 'node:http';
import { type ClientHttp2Session, type ClientHttp2Stream, connect, constants } from 'node:http2';
import { HTTP2_MAX_SESSION_MEMORY_MB, HTTP2_SESSION_SETTINGS } from '@recipes/http';

/** A stream's response head, and its body as it comes. */
export interface UpstreamStream {
  statusCode: number;
  headers: IncomingHttpHeaders;
  body: ClientHttp2Stream;
}

/**
 * Whatever breaks a stream once its head has come also ends it ('close'), which is what its reader waits
 * for. Declared here, not in `open`, so that it keeps nothing of `open` alive for the stream's lifetime.
 */
const ignoreError = () => {};

/**
 * Not sent on: headers of one HTTP/1.1 connection, which HTTP/2 forbids (RFC 9113 §8.2.2; `host` becomes
 * `:authority`), and `content-length`, as a stream's request goes with no body (HTTP/2 refuses a length
 * that its body does not have).
 */
const NOT_SENT = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'transfer-encoding',
  'upgrade',
  'host',
  'content-length',
]);

/**
 * One HTTP/2 connection (h2c, which a service that serves streams accepts: see @recipes/http's cleartext-http2.ts)
 * per service instance, carrying every event stream the gateway holds to that instance. A stream then costs
 * the gateway its client's socket only, not a second one upstream with a client of its own: about half
 * the memory, and half the open files, which bound how many streams one gateway can hold.
 */
export class StreamSessions {
  readonly #sessions = new Map<string, ClientHttp2Session>();

  constructor(private readonly headersTimeoutMs: number) {}

  /**
   * `GET {base}{path}`, resolved with the response head. Rejected when the connection is refused (the
   * error's cause says ECONNREFUSED, as undici's would), breaks, or no head comes within the timeout.
   */
  open(base: string, path: string, headers: OutgoingHttpHeaders): Promise<UpstreamStream> {
    // Built up rather than copied and deleted from: Node keeps it as long as the stream (`sentHeaders`), and
    // an object something was deleted from is a dictionary, several times the size.
    const requestHeaders: OutgoingHttpHeaders = { ':method': 'GET', ':path': path };
    for (const [name, value] of Object.entries(headers)) if (!NOT_SENT.has(name)) requestHeaders[name] = value;
    const body = this.#sessionTo(base).request(requestHeaders, { endStream: true });
    return new Promise((resolve, reject) => {
      const fail = (error: Error) => {
        clearTimeout(deadline);
        // Cancelling may report once more; the failure is already being handled.
        body.on('error', ignoreError);
        body.close(constants.NGHTTP2_CANCEL);
        reject(error);
      };
      const deadline = setTimeout(
        () => fail(new Error(`no response head from ${base} within ${this.headersTimeoutMs} ms`)),
        this.headersTimeoutMs,
      );
      body.once('error', fail);
      body.once('response', (head) => {
        clearTimeout(deadline);
        body.removeListener('error', fail);
        body.on('error', ignoreError);
        const { ':status': statusCode, ...responseHeaders } = head;
        resolve({ statusCode: Number(statusCode), headers: responseHeaders as IncomingHttpHeaders, body });
      });
    });
  }

  /** Ends every session at once, and with them their streams. */
  close(): void {
    for (const session of this.#sessions.values()) session.destroy();
    this.#sessions.clear();
  }

  /**
   * The open session to `base`, or a new one when there is none, or it is closing (a GOAWAY from an instance that
   * stops).
   */
  #sessionTo(base: string): ClientHttp2Session {
    const current = this.#sessions.get(base);
    if (current && !current.closed && !current.destroyed) return current;
    const session = connect(base, {
      settings: { ...HTTP2_SESSION_SETTINGS, enablePush: false },
      maxSessionMemory: HTTP2_MAX_SESSION_MEMORY_MB,
    });
    const forget = () => {
      if (this.#sessions.get(base) === session) this.#sessions.delete(base);
    };
    // A failure reaches each of its streams too, where it is handled; the session itself only goes.
    session.on('error', forget);
    session.once('goaway', forget);
    session.once('close', forget);
    this.#sessions.set(base, session);
    return session;
  }
}
