import { type DomainError, REQUEST_ID_HEADER, unavailable } from '@recipes/contracts';
import { currentTrailId } from '@recipes/logging';

/** GETs JSON from another service's `/internal` routes, with a short deadline. */
export class InternalClient {
  constructor(
    private readonly service: string,
    private readonly baseUrl: string,
    private readonly timeoutMs: number,
  ) {}

  /** The parsed body, or undefined for a 404 ("no such thing"). */
  async get(path: string): Promise<unknown> {
    let response: Response;
    try {
      // The request or event that needs the answer is named, so the owner's log lines carry its id too.
      const trailId = currentTrailId();
      response = await fetch(`${this.baseUrl}${path}`, {
        signal: AbortSignal.timeout(this.timeoutMs),
        headers: trailId === undefined ? {} : { [REQUEST_ID_HEADER]: trailId },
      });
    } catch {
      // Not knowing is not the same as "it does not exist": the caller may try again shortly.
      throw this.unavailable();
    }
    if (response.status === 404) return undefined;
    if (!response.ok) throw this.unavailable();
    return response.json();
  }

  private unavailable(): DomainError {
    return unavailable(`The ${this.service} service is unavailable, try again later`);
  }
}
