export interface ServiceProcess {
  readonly service: string;
  readonly instance: number;
  readonly port: number;
  readonly url: string;
  /** Where this process serves its Prometheus metrics. */
  readonly metricsUrl: string;
  readonly pid: number | undefined;
  /** With `inspect`: where the inspector listens once the process gets SIGUSR1. */
  readonly inspectPort: number | undefined;
  readonly running: boolean;
  /** With `logs: 'pipe'`: every line the process wrote to stdout (its JSON log), across restarts. */
  readonly lines: readonly string[];
  /** With `logs: 'pipe'`: every line the process wrote to stderr, across restarts (also shown as it comes). */
  readonly errorLines: readonly string[];
  /** Spawns the process (again) and resolves once it is ready. */
  start(): Promise<void>;
  /** Sends the signal (SIGTERM by default) and resolves once the process has exited. */
  kill(signal?: NodeJS.Signals): Promise<{ code: number | null; signal: NodeJS.Signals | null } | undefined>;
  restart(): Promise<void>;
}

export interface StartedSystem {
  services: string[];
  urlOf(service: string, instance?: number): string;
  /** Where the instance serves the routes for the other services (users, content and collections only). */
  internalUrlOf(service: string, instance?: number): string;
  databaseUrl: string;
  processes: ServiceProcess[];
  process(service: string, instance?: number): ServiceProcess | undefined;
  stop(): Promise<unknown>;
}

export function startSystem(options: {
  name: string;
  portOffset: number;
  /** Instances of each backend service, 1 (the default) to 5; instance n listens 10 n ports above the first. */
  replicas?: number;
  /**
   * Gateways, 1 (the default) to 5, each with every backend instance behind it; gateway n listens 10 n ports above the
   * first.
   */
  gateways?: number;
  databaseUrl?: string;
  amqpUrl?: string;
  env?: Record<string, string>;
  /**
   * Settings for one process over all others, given the environment it would get without them: e.g. an
   * instance's own DATABASE_URL or AMQP_URL through a proxy. Called once per process, the gateway too.
   */
  envFor?: (
    service: string,
    instance: number,
    env: Readonly<Record<string, string | undefined>>,
  ) => Record<string, string>;
  /** 'inherit' shows the processes' output; 'pipe' keeps it per process in `lines`. */
  logs?: 'ignore' | 'inherit' | 'pipe';
  /** Give each process an inspector port (opened on SIGUSR1). */
  inspect?: boolean;
  /** How long each process may take to report ready (30 s): more for a system started beside other servers. */
  readyWithinMs?: number;
}): Promise<StartedSystem>;

/** Where each instance of a system with ports moved by `portOffset` listens. */
export function addressesOf(portOffset: number): {
  portOf(service: string, instance?: number): number;
  urlOf(service: string, instance?: number): string;
  internalUrlOf(service: string, instance?: number): string;
};
