import type { Queryable } from '@recipes/db';
import { type DuePush, type PushSettlement, settlePushes } from '../repository/push-deliveries.js';

interface Waiting {
  settlement: PushSettlement;
  resolve(next: DuePush | undefined): void;
  reject(error: unknown): void;
}

/**
 * Settles handled pushes in batches, as a group commit does: the first waits only for the pushes handled
 * in the same turn of the event loop, and those handled while its statement is under way go together in
 * the next. Each settlement holds its subscription's lease until its statement commits, so batching
 * changes nothing another sender sees but when.
 */
export class PushSettlements {
  private waiting: Waiting[] = [];
  private underWay = false;

  constructor(
    private readonly db: Queryable,
    private readonly leaseMs: number,
  ) {}

  /** Settles `settlement`; gives its subscription's next push when it asked for one and one is due. */
  settle(settlement: PushSettlement): Promise<DuePush | undefined> {
    return new Promise((resolve, reject) => {
      this.waiting.push({ settlement, resolve, reject });
      if (!this.underWay) {
        this.underWay = true;
        setImmediate(() => void this.flush());
      }
    });
  }

  private async flush(): Promise<void> {
    while (this.waiting.length > 0) {
      const batch = this.waiting;
      this.waiting = [];
      try {
        const next = await settlePushes(
          this.db,
          batch.map((waiting) => waiting.settlement),
          this.leaseMs,
        );
        for (const { settlement, resolve } of batch) resolve(next.get(settlement.push.subscription.id));
      } catch (error) {
        for (const { reject } of batch) reject(error);
      }
    }
    this.underWay = false;
  }
}
