import { Agent, request } from 'undici';
import type { Service } from './route-table.js';
import { RestartWait, RestartWatch } from './restart-watch.js';
import { StreamSessions } from './stream-sessions.js';

export interface UpstreamSettings {
  /** Headers, and each body chunk, must arrive within this time. */
  timeoutMs: number;
  /** Sockets kept per upstream address. */
  connections?: number;
  /** How long a request waits for a service whose every instance refuses it, restarting, before `503`. */
  restartWaitMs?: number;
}

/** How long an instance that said it is stopping is tried last: past its notice and drain (libs/http). */
const STOPPING_MS = 5_000;
/** How long an instance asked whether it is ready, while requests wait for its restart, has to answer. */
const READY_TIMEOUT_MS = 1_000;

/**
 * The addresses of every service and one keep-alive connection pool per address (an undici Agent),
 * shared by the proxy, the health check and the docs: no client is created per request.
 */
export class Upstreams {
  readonly agent: Agent;
  /** For event streams, which stay open as long as their client wants: a deadline for the head, none on the body. */
  readonly streams: StreamSessions;
  readonly #cursor = new Map<Service, number>();
  /** Instances that said they are stopping, until when they are tried last. */
  readonly #stoppingUntil = new Map<string, number>();
  readonly #restartWatches = new Map<Service, RestartWatch>();

  readonly #restartWaitMs: number;

  constructor(
    readonly urls: Readonly<Record<Service, readonly string[]>>,
    { timeoutMs, connections = 128, restartWaitMs = 0 }: UpstreamSettings,
  ) {
    this.#restartWaitMs = restartWaitMs;
    this.agent = new Agent({
      connections,
      // A service that is shutting down stops listening once no connection is left, within 3 s
      // (see `listen` in @recipes/http): an idle one is closed here before that, never reused as it goes.
      keepAliveMaxTimeout: 2_000,
      headersTimeout: timeoutMs,
      bodyTimeout: timeoutMs,
      connect: { timeout: timeoutMs },
    });
    this.streams = new StreamSessions(timeoutMs);
  }

  /** The next base URL of `service`, in turn (round-robin across its instances). */
  next(service: Service): string {
    const urls = this.urls[service];
    if (urls.length === 1) return urls[0]!;
    const index = this.#cursor.get(service) ?? 0;
    this.#cursor.set(service, (index + 1) % urls.length);
    return urls[index]!;
  }

  /**
   * Every base URL of `service`, starting with the next in turn: where to send a request, and where
   * to try next when an instance refuses the connection.
   */
  inTurn(service: Service): string[] {
    const urls = this.urls[service];
    const first = urls.indexOf(this.next(service));
    const turn = [...urls.slice(first), ...urls.slice(0, first)];
    if (this.#stoppingUntil.size === 0) return turn;
    const now = Date.now();
    for (const [url, until] of this.#stoppingUntil) if (until <= now) this.#stoppingUntil.delete(url);
    const going = (url: string) => this.#stoppingUntil.has(url);
    return [...turn.filter((url) => !going(url)), ...turn.filter(going)];
  }

  /**
   * The instance at `base` answered that it is stopping (`NOT_TAKEN_HEADER`): it is tried last for a while, so
   * that no new request of ours waits in its listener's queue as it closes. It comes back in turn after that,
   * restarted or not (a refused connection is passed over anyway).
   */
  stopping(base: string): void {
    this.#stoppingUntil.set(base, Date.now() + STOPPING_MS);
  }

  /** A request's wait, from now, for a service whose every instance refuses it. */
  restartWait(): RestartWait {
    return new RestartWait(this.#restartWaitMs);
  }

  /**
   * Resolves once an instance of `service` answers that it is ready again (it is no longer tried last), or once
   * `wait` runs out: what a request whose every instance refused it waits for.
   */
  afterRestart(service: Service, wait: RestartWait): Promise<void> {
    let watch = this.#restartWatches.get(service);
    if (!watch) {
      watch = new RestartWatch(
        () => this.#firstReady(service),
        (base) => this.#stoppingUntil.delete(base),
      );
      this.#restartWatches.set(service, watch);
    }
    return watch.until(wait);
  }

  async #firstReady(service: Service): Promise<string | undefined> {
    for (const base of this.urls[service]) {
      const ready = await this.get(base, '/health/ready', READY_TIMEOUT_MS).then(
        ({ status }) => status === 200,
        () => false,
      );
      if (ready) return base;
    }
    return undefined;
  }

  /** Whether the instance at `base` said it is stopping, within the last few seconds. */
  isStopping(base: string): boolean {
    const until = this.#stoppingUntil.get(base);
    return until !== undefined && until > Date.now();
  }

  /** GET `{base}{path}` with a short deadline; the response body is read (and so released) as text. */
  async get(base: string, path: string, timeoutMs: number): Promise<{ status: number; text: string }> {
    const response = await request(`${base}${path}`, {
      dispatcher: this.agent,
      headersTimeout: timeoutMs,
      bodyTimeout: timeoutMs,
      signal: AbortSignal.timeout(timeoutMs),
    });
    return { status: response.statusCode, text: await response.body.text() };
  }

  async close(): Promise<void> {
    this.streams.close();
    await this.agent.close();
  }
}
