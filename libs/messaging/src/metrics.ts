/** Outcomes by event type: each delivery ends as consumed or as a failure, some failures as dead letters. */
export interface BrokerMetrics {
  published(type: string): void;
  publishFailed(type: string): void;
  consumed(type: string): void;
  consumeFailed(type: string): void;
  deadLettered(type: string): void;
  /** One run of `queue`'s handler on an event of `type`, and how it ended (a dependency away counts as failed). */
  handled(queue: string, type: string, outcome: 'consumed' | 'failed', seconds: number): void;
}

export const noMetrics: BrokerMetrics = {
  published: () => undefined,
  publishFailed: () => undefined,
  consumed: () => undefined,
  consumeFailed: () => undefined,
  deadLettered: () => undefined,
  handled: () => undefined,
};
