import type { Pool } from '@recipes/db';
import type { Logger } from '@recipes/logging';
import pg from 'pg';
import { backoffMs } from './backoff.js';

export interface ListenerSettings {
  pool: Pool;
  /** For the LISTEN connection; the pool's connection settings when omitted. */
  databaseUrl?: string;
  /** The channel the outbox trigger notifies on. */
  channel: string;
  logger: Logger;
  /** Each notification, and once every time listening (re)starts: rows may have been written meanwhile. */
  onNotification: () => void;
}

/**
 * A dedicated connection that LISTENs on the outbox's channel, made again with backoff whenever it is lost;
 * the relay's polling covers the gap.
 */
export class OutboxListener {
  private readonly config: pg.ClientConfig;
  private running = false;
  private client: pg.Client | undefined;
  private failures = 0;
  private retry: NodeJS.Timeout | undefined;

  constructor(private readonly settings: ListenerSettings) {
    const { pool, databaseUrl } = settings;
    const base: pg.ClientConfig = databaseUrl ? { connectionString: databaseUrl } : { ...pool.options };
    // keepAlive: the LISTEN connection is idle most of the time, and a dead peer must still be noticed.
    this.config = { ...base, application_name: `${base.application_name ?? 'outbox'}:relay`, keepAlive: true };
  }

  start(): void {
    this.running = true;
    this.listen();
  }

  async stop(): Promise<void> {
    this.running = false;
    clearTimeout(this.retry);
    const client = this.client;
    this.client = undefined;
    await client?.end().catch(() => undefined);
  }

  private listen(): void {
    if (!this.running) return;
    const { channel, logger, onNotification } = this.settings;
    const client = new pg.Client(this.config);
    this.client = client;
    const lost = (err?: Error) => {
      if (this.client !== client) return; // stopped, or already handled ('error' is followed by 'end')
      this.client = undefined;
      client.end().catch(() => undefined);
      if (!this.running) return;
      this.failures += 1;
      const retryInMs = backoffMs(this.failures);
      logger.warn({ err, retryInMs }, 'outbox listener lost its database connection; polling meanwhile');
      this.retry = setTimeout(() => this.listen(), retryInMs);
    };
    client.on('error', lost);
    client.on('end', () => lost(new Error('connection ended')));
    client.on('notification', onNotification);
    client
      .connect()
      .then(() => client.query(`LISTEN ${client.escapeIdentifier(channel)}`))
      .then(() => {
        if (this.client !== client) return;
        this.failures = 0;
        onNotification(); // rows may have been written while nobody was listening
      })
      .catch(lost);
  }
}
