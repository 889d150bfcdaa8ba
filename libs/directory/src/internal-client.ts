import { type DomainError, REQUEST_ID_HEADER, unavailable } from '@recipes/contracts';
import { currentTrailId } from '@recipes/logging';

/**
 * GETs JSON from another service's `/internal` routes, with a short deadline. `baseUrls` may name several
 * instances, comma-separated: a look-up that cannot reach one (stopped for a rolling restart, or slow)
 * goes to the next, as a GET may; only when none answers is the owner unavailable.
 */
export class InternalClient {
  private readonly baseUrls: string[];
  private next = 0;

  constructor(
    private readonly service: string,
    baseUrls: string,
    private readonly timeoutMs: number,
  ) {
    this.baseUrls = baseUrls
      .split(',')
      .map((url) => url.trim())
      .filter((url) => url !== '');
  }

  /** The parsed body, or undefined for a 404 ("no such thing"). */
  async get(path: string): Promise<unknown> {
    // Each look-up starts at the next instance, so that they share the work.
    const first = this.next;
    this.next = (this.next + 1) % this.baseUrls.length;
    for (let tried = 0; tried < this.baseUrls.length; tried += 1) {
      const response = await this.fetch(`${this.baseUrls[(first + tried) % this.baseUrls.length]}${path}`);
      if (response === undefined || response.status >= 500) continue;
      if (response.status === 404) return undefined;
      if (!response.ok) break;
      return response.json();
    }
    // Not knowing is not the same as "it does not exist": the caller may try again shortly.
    throw this.unavailable();
  }

  /** The answer of one instance, or undefined when it could not be had in time. */
  private async fetch(url: string): Promise<Response | undefined> {
    try {
      // The request or event that needs the answer is named, so the owner's log lines carry its id too.
      const trailId = currentTrailId();
      return await fetch(url, {
        signal: AbortSignal.timeout(this.timeoutMs),
        headers: trailId === undefined ? {} : { [REQUEST_ID_HEADER]: trailId },
      });
    } catch {
      return undefined;
    }
  }

  private unavailable(): DomainError {
    return unavailable(`The ${this.service} service is unavailable, try again later`);
  }
}
