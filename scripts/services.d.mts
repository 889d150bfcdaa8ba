export interface ServicePorts {
  readonly name: string;
  /** Its API (the gateway's: the public one). */
  readonly port: number;
  /** Its routes for the other services, where it has some. */
  readonly internalPort?: number;
  /** The gateway's, behind the front (scripts/front.mjs) that then takes its port. */
  readonly backPort?: number;
  /** Its Prometheus metrics. */
  readonly metricsPort: number;
}

export const services: readonly ServicePorts[];

/** Environment for every service process: glibc's allocator settings (GLIBC_TUNABLES). */
export const allocatorSettings: { readonly GLIBC_TUNABLES: string };

/** V8's settings for every service process, given on its command line before the script. */
export const nodeFlags: readonly string[];

/** What Node runs for the service `name`, after its own path: V8's settings, then the service's entry. */
export function serviceArgs(name: string): string[];

export function upstreamVariables(
  service: string,
  urls: { url: string; internalUrl?: string | undefined },
): [string, string][];
