export const LOCAL_DATABASE_URL: string;
export const LOCAL_AMQP_URL: string;

export type FaultKind =
  | 'postgres-stop-fast'
  | 'postgres-stop-immediate'
  | 'rabbitmq-stop-app'
  | 'rabbitmq-drop-connections'
  | 'instance-kill'
  | 'database-latency'
  | 'database-cut'
  | 'broker-latency'
  | 'broker-cut'
  | 'push-unavailable'
  | 'push-throttled'
  | 'push-hang';

export const FAULT_KINDS: readonly FaultKind[];

export interface CampaignOptions {
  /** Draws the fault schedule and the clients' choices; a random one (in the result) by default. */
  seed?: number;
  /**
   * How long faults go on (fractions allowed). Default 10. The lanes run at once and are paced so that
   * each kind comes `max(1, round(minutes × perKindPerMinute))` times; a lane that has not got there
   * when the time is up goes on until it has (for at most a quarter of the time more).
   */
  minutes?: number;
  /** Gets each progress line (one per fault); console.log by default. */
  log?: (line: string) => void;
  /** The system's name: its database and exchange (`recipes.<name>`). Default `recipes_chaos`. */
  name?: string;
  /** Moves every port of the system, as `startSystem` does. Default 2000. */
  portOffset?: number;
  databaseUrl?: string;
  amqpUrl?: string;
  /** Container ids of the servers when a test run started them; otherwise the local servers' tools are used. */
  containers?: { postgres?: string; rabbitmq?: string };
  /** Concurrent clients of the API. Default 8. */
  clients?: number;
  /** Faults of each kind per minute. Default 6.2 (62 of each in 10 minutes). */
  perKindPerMinute?: number;
  /** How long the system may take to settle once everything is restored. Default 180 000. */
  settleTimeoutMs?: number;
  /** The services' output, as `startSystem` takes it. Default 'ignore'. */
  logs?: 'ignore' | 'inherit' | 'pipe';
  /** Leave the system's database in place for a look after the run (default); false drops it at the end. */
  keepDatabase?: boolean;
  /** Ends the fault phase early; the campaign then restores everything, stops, and rejects. */
  /** How long each process may take to be ready, at the start and after a kill. Default 30,000. */
  readyWithinMs?: number;
  /**
   * The lanes to run, by name (scripts/chaos/lanes.mjs: postgres, rabbitmq, process, network, partition,
   * push); every one by default. Only their kinds are injected, counted and held to the quota.
   */
  lanes?: string[];
  signal?: AbortSignal;
}

export interface CheckRow {
  check: string;
  result: 'PASS' | 'FAIL';
  figures: string;
}

export interface WorkloadRow {
  action: string;
  requests: number;
  ok: number;
  /** 404 or 409: a race with another client's deletion or addition. */
  refused: number;
  /** 503, 504 or no answer. */
  unavailable: number;
  unexpected: number;
  statuses: string;
}

export interface HostileRow {
  action: string;
  requests: number;
  statuses: string;
}

export interface CampaignResult {
  seed: number;
  minutes: number;
  /** The whole run, startup and settling included. */
  seconds: number;
  /** The system's database, when it is left in place for a look after the run. */
  database: string | undefined;
  /** Every row is PASS. */
  passed: boolean;
  rows: CheckRow[];
  /** How long the lanes ran, their last faults included. */
  faultSeconds: number;
  /** The fewest faults of each kind the campaign was to inject. */
  quota: Record<FaultKind, number>;
  /** How many faults of each kind were injected. */
  faults: Record<FaultKind, number>;
  /** Mean seconds spent injecting and undoing one fault of each kind, its own duration aside. */
  faultCosts: Record<FaultKind, number>;
  faultErrors: string[];
  requests: number;
  workload: WorkloadRow[];
  /** The hostile user's calls (scripts/chaos/hostile.mjs), by kind, with the statuses they got. */
  hostile: HostileRow[];
  /** The bursts above capacity (scripts/chaos/overload.mjs), one row each. */
  bursts: BurstRow[];
  /** Per minute of the fault phase (0: the setup before it), by when each answer came. */
  perMinute: MinuteRow[];
}

export interface BurstRow {
  burst: number;
  requests: number;
  /** 2xx. */
  ok: number;
  /** 503 with Retry-After: refused by the gateway's admission control. */
  'at capacity': number;
  /** Any other 503, a 504, or no answer. */
  unavailable: number;
  /** 404 or 409. */
  refused: number;
  unexpected: number;
  /** The answers' time, those refused at capacity aside, and theirs. */
  'ms p50 / max': string;
  'at capacity ms p50 / max': string;
}

export interface MinuteRow {
  minute: number;
  requests: number;
  '2xx': number;
  '201s': number;
  /** 503, 504 or no answer. */
  unavailable: number;
}

/** Runs a campaign; restores every server and stops every process it started before it settles. */
export function runCampaign(options?: CampaignOptions): Promise<CampaignResult>;

/** The result as the tables `npm run chaos` prints. */
export function formatResult(result: CampaignResult): string;
