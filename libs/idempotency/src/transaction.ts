import { type Pool, type PoolClient, SharedTransaction } from '@recipes/db';

/**
 * The transaction of a request with a key, on a pool client of its own from the lock to the end, shared
 * with the handler (whose `withTransaction` calls join it), so that its effect and its kept response
 * commit together or not at all. `onEnd` runs once the client is back in the pool.
 */
export class KeyTransaction {
  readonly shared: SharedTransaction;
  private lost: Error | undefined;
  private ended = false;
  private readonly onError = (error: Error) => {
    this.lost = error;
  };

  private constructor(
    readonly client: PoolClient,
    pool: Pool,
    private readonly onEnd: () => void,
  ) {
    // Unheard, a connection lost while the client is out would crash the process (see withTransaction).
    client.on('error', this.onError);
    this.shared = new SharedTransaction(pool, client);
  }

  static async begin(pool: Pool, onEnd: () => void): Promise<KeyTransaction> {
    let client: PoolClient;
    try {
      client = await pool.connect();
    } catch (error) {
      onEnd();
      throw error;
    }
    const transaction = new KeyTransaction(client, pool, onEnd);
    try {
      await client.query('BEGIN');
    } catch (error) {
      await transaction.rollback();
      throw error;
    }
    return transaction;
  }

  commit(): Promise<void> {
    return this.end('COMMIT');
  }

  /** Never throws: there is nothing left to keep. */
  async rollback(): Promise<void> {
    await this.end('ROLLBACK').catch(() => undefined);
  }

  private async end(statement: 'COMMIT' | 'ROLLBACK'): Promise<void> {
    if (this.ended) return;
    this.ended = true;
    let failure: unknown;
    try {
      // No handler work may still be running in the transaction when it ends.
      await this.shared.close();
      await this.client.query(statement);
    } catch (error) {
      failure = error;
      await this.client.query('ROLLBACK').catch(() => undefined);
      throw error;
    } finally {
      this.client.removeListener('error', this.onError);
      // A client whose COMMIT or ROLLBACK failed may be in any state: dropped rather than reused.
      this.client.release(this.lost ?? (failure as Error | undefined));
      this.onEnd();
    }
  }
}
