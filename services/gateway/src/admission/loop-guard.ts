import { STATUS_CODES, type IncomingMessage, type OutgoingHttpHeaders, type ServerResponse } from 'node:http';
import { PROBLEM_CONTENT_TYPE, pathOf, problem, REQUEST_ID_HEADER, requestIdFor } from '@recipes/http';
import { gatewayShedMetric, type Registry } from '@recipes/metrics';

/**
 * The gateway's own event loop, the one queue admission control cannot see (docs/architecture.md §10).
 * When more arrives than the gateway itself can take in (reads at twice the system's capacity on two
 * cores), requests wait in its sockets and its event loop before any hook runs, refusals too, and the
 * waits grow to seconds. So the loop's delay is sampled every few milliseconds, and while it is past
 * its limit an API request is answered 503 before Fastify sees it: no routing, hooks, proxying or log
 * line, a fraction of a request's cost, so that the loop catches up. Streams, health and docs pass.
 */
export interface LoopDelay {
  /** How far behind the event loop was at the latest look. */
  readonly delayMs: number;
  close(): void;
}

/**
 * Looks every `everyMs` at how late the loop runs a timer that was due then. The lesser of the last two
 * looks: a loop that falls behind stays behind, while one pause (a collection, a module loading) is over
 * by the next look and sheds nothing.
 */
export function sampledLoopDelay(everyMs = 10): LoopDelay {
  let delayMs = 0;
  let previous = 0;
  let due = performance.now() + everyMs;
  const timer = setInterval(() => {
    const now = performance.now();
    const latest = Math.max(0, now - due);
    delayMs = Math.min(previous, latest);
    previous = latest;
    due = now + everyMs;
  }, everyMs);
  timer.unref();
  return {
    get delayMs() {
      return delayMs;
    },
    close: () => clearInterval(timer),
  };
}

/** Shed while behind: never a stream, a health check or the documentation. */
const shedable = (url: string) => url.startsWith('/api/') && !url.startsWith('/api/notifications/stream');

export class LoopGuard {
  private readonly counted: () => void;

  constructor(
    /** A loop this far behind sheds. */
    private readonly maxDelayMs: number,
    registry: Registry,
    /** The headers every answer of the gateway carries (its security headers). */
    private readonly headers: OutgoingHttpHeaders,
    private readonly loop: LoopDelay = sampledLoopDelay(),
  ) {
    this.counted = gatewayShedMetric(registry);
  }

  /** `AppSettings.answerEarly`: answers `request` with 503 itself while the loop is behind. */
  readonly answerEarly = (request: IncomingMessage, response: ServerResponse): boolean => {
    if (this.loop.delayMs <= this.maxDelayMs || !shedable(request.url ?? '')) return false;
    this.counted();
    const requestId = requestIdFor(request);
    const body = JSON.stringify(
      problem(503, 'The gateway is at capacity, try again shortly', { instance: pathOf(request.url ?? ''), requestId }),
    );
    response.writeHead(503, STATUS_CODES[503], {
      ...this.headers,
      'content-type': `${PROBLEM_CONTENT_TYPE}; charset=utf-8`,
      'content-length': Buffer.byteLength(body),
      'retry-after': '1',
      [REQUEST_ID_HEADER]: requestId,
    });
    response.end(body);
    return true;
  };

  close(): void {
    this.loop.close();
  }
}
