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
  | 'broker-cut';

export const FAULT_KINDS: readonly FaultKind[];

export interface CampaignOptions {
  /** Draws the fault schedule and the clients' choices; a random one (in the result) by default. */
  seed?: number;
  /** How long faults go on (fractions allowed): at least one round of every kind, then until this passes. Default 10. */
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
  /** Each fault lasts between these many seconds. Default [1, 8]. */
  faultSeconds?: [number, number];
  /** The pause after each fault, in seconds. Default [1, 5]. */
  gapSeconds?: [number, number];
  /** How long the system may take to settle once everything is restored. Default 180 000. */
  settleTimeoutMs?: number;
  /** The services' output, as `startSystem` takes it. Default 'ignore'. */
  logs?: 'ignore' | 'inherit' | 'pipe';
  /** Leave the system's database in place for a look after the run (default); false drops it at the end. */
  keepDatabase?: boolean;
  /** Ends the fault phase early; the campaign then restores everything, stops, and rejects. */
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
  faults: Record<FaultKind, number>;
  faultErrors: string[];
  requests: number;
  workload: WorkloadRow[];
}

/** Runs a campaign; restores every server and stops every process it started before it settles. */
export function runCampaign(options?: CampaignOptions): Promise<CampaignResult>;

/** The result as the tables `npm run chaos` prints. */
export function formatResult(result: CampaignResult): string;
