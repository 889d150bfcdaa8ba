import { randomUUID } from 'node:crypto';
import { createEvent, type EventEnvelope, userCreated } from '@recipes/contracts';
import { type Pool, withTransaction } from '@recipes/db';
import { createLogger } from '@recipes/logging';
import type { Publisher } from '@recipes/messaging';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { relayBatch } from '../src/batch.js';
import { enqueue } from '../src/index.js';
import { type OutboxDatabase, outboxDatabase } from './support.js';

/**
 * One batch claims its rows by deleting them and puts back those the broker did not confirm. Whichever
 * events the broker refuses, and however many rows wait, a batch must publish the confirmed ones in
 * their order and leave exactly the refused ones, as they were but for one more attempt and the error.
 */
const logger = createLogger({ service: 'outbox-batch-test', level: 'silent' });
const SEED = 20_261_126;

interface Row {
  id: string;
  payload: EventEnvelope;
  createdAt: string;
  attempts: number;
  lastError: string | null;
  later: boolean;
}

describe('relayBatch', () => {
  let outbox: OutboxDatabase;
  let pool: Pool;

  beforeAll(async () => {
    outbox = await outboxDatabase({ schema: 'svc', applicationName: 'outbox-batch-test', logger });
    pool = outbox.pool;
  });
  afterAll(() => outbox?.drop());

  const rows = async () =>
    (
      await pool.query<Row>(
        `SELECT id, payload, created_at::text AS "createdAt", attempts, last_error AS "lastError", available_at > now() AS later
           FROM outbox ORDER BY created_at, id`,
      )
    ).rows;

  /** A broker that confirms every event but those in `refused`. */
  const brokerRefusing = (refused: Set<string>, published: string[]): Publisher => ({
    async publish(event) {
      if (refused.has(event.id)) throw new Error(`refused ${event.id}`);
      published.push(event.id);
    },
  });

  it('publishes the confirmed rows in order and puts back exactly the refused ones, rescheduled', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 12 }),
        fc.integer({ min: 1, max: 15 }),
        fc.func(fc.boolean()),
        async (waiting, batchSize, refuses) => {
          await pool.query('DELETE FROM outbox');
          // One transaction each, so that created_at orders them.
          const events = Array.from({ length: waiting }, () =>
            createEvent(
              userCreated,
              { id: randomUUID(), username: 'ada', avatarUrl: null, revision: 0 },
              { producer: 'users', correlationId: 'c' },
            ),
          );
          for (const event of events) await withTransaction(pool, (client) => enqueue(client, event));
          const before = await rows();

          const claimed = before.slice(0, batchSize);
          const refused = new Set(claimed.filter((_, index) => refuses(index)).map((row) => row.id));
          const published: string[] = [];
          expect(await relayBatch({ pool, publisher: brokerRefusing(refused, published), logger, batchSize })).toBe(
            claimed.length,
          );

          expect(published).toEqual(claimed.filter((row) => !refused.has(row.id)).map((row) => row.id));
          const after = await rows();
          const kept = before.filter((row) => !published.includes(row.id));
          expect(after.map((row) => row.id).sort()).toEqual(kept.map((row) => row.id).sort());
          for (const row of after) {
            const was = before.find((old) => old.id === row.id)!;
            expect({ payload: row.payload, createdAt: row.createdAt }).toEqual({
              payload: was.payload,
              createdAt: was.createdAt,
            });
            if (refused.has(row.id))
              expect(row).toMatchObject({ attempts: 1, lastError: `refused ${row.id}`, later: true });
            else expect(row).toMatchObject({ attempts: 0, lastError: null, later: false });
          }
        },
      ),
      { seed: SEED, numRuns: 40 },
    );
  });

  it('commits its claim without waiting for the disk, and leaves the connection as it was', async () => {
    // What synchronous_commit is when the claiming statement ends, as a trigger on the outbox sees it.
    await pool.query(`
      CREATE TABLE claim_settings (synchronous_commit text);
      CREATE FUNCTION record_claim_setting() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        INSERT INTO claim_settings VALUES (current_setting('synchronous_commit'));
        RETURN NULL;
      END $$;
      CREATE TRIGGER record_claim_setting AFTER DELETE ON outbox FOR EACH STATEMENT EXECUTE FUNCTION record_claim_setting();`);
    try {
      await pool.query('DELETE FROM outbox');
      await pool.query('TRUNCATE claim_settings');
      const event = createEvent(
        userCreated,
        { id: randomUUID(), username: 'ada', avatarUrl: null, revision: 0 },
        { producer: 'users', correlationId: 'c' },
      );
      await withTransaction(pool, (client) => enqueue(client, event));
      const published: string[] = [];
      expect(await relayBatch({ pool, publisher: brokerRefusing(new Set(), published), logger, batchSize: 10 })).toBe(
        1,
      );
      expect(published).toEqual([event.id]);
      expect((await pool.query('SELECT synchronous_commit FROM claim_settings')).rows).toEqual([
        { synchronous_commit: 'off' },
      ]);
      // Transaction-local: every connection of the pool still commits as the server is set.
      const clients = await Promise.all(Array.from({ length: pool.totalCount }, () => pool.connect()));
      try {
        for (const client of clients) {
          const { rows } = await client.query(
            "SELECT setting, reset_val AS server FROM pg_settings WHERE name = 'synchronous_commit'",
          );
          expect(rows[0].setting).toBe(rows[0].server);
        }
      } finally {
        for (const client of clients) client.release();
      }
    } finally {
      await pool.query(
        'DROP TRIGGER record_claim_setting ON outbox; DROP FUNCTION record_claim_setting(); DROP TABLE claim_settings',
      );
    }
  });
  it('finds the rows it claims by their keys, not by reading every page the deleted rows left', async () => {
    // A queue's table keeps the pages its deleted rows took until a vacuum: here 20,000 rows' worth.
    await pool.query('ALTER TABLE outbox SET (autovacuum_enabled = false)');
    try {
      await pool.query('DELETE FROM outbox');
      await pool.query(
        `INSERT INTO outbox (id, type, payload) SELECT gen_random_uuid(), 'user.created', '{}' FROM generate_series(1, 20000)`,
      );
      await pool.query('DELETE FROM outbox');
      const { rows: sizes } = await pool.query<{ table: number; claimIndex: number }>(
        `SELECT (pg_relation_size('outbox') / current_setting('block_size')::int)::int AS "table",
                (pg_relation_size('outbox_claim_idx') / current_setting('block_size')::int)::int AS "claimIndex"`,
      );
      const { table, claimIndex } = sizes[0]!;
      // The deleted rows left their pages: a sequential scan reads them all, more than claiming by key needs.
      expect(table).toBeGreaterThan(claimIndex + 50);
      await pool.query(
        `INSERT INTO outbox (id, type, payload) SELECT gen_random_uuid(), 'user.created', '{}' FROM generate_series(1, 3)`,
      );
      const client = await pool.connect();
      try {
        // Counted by the connection's own statistics, not by the pages it read: how many pages a scan by key
        // reads depends on whether any snapshot on the server, in any database, is older than the deletion.
        // Found by a join instead (IN), the rows were looked for in a sequential scan of the whole table.
        const scans = async () =>
          (
            await client.query<{ seq: number; index: number }>(
              `SELECT seq_scan::int AS seq, idx_scan::int AS index
                 FROM pg_stat_xact_user_tables WHERE relid = 'outbox'::regclass`,
            )
          ).rows[0]!;
        await client.query('BEGIN');
        const before = await scans();
        const { rows: claimed } = await client.query('SELECT * FROM claim_outbox(500)');
        const after = await scans();
        expect(claimed).toHaveLength(3);
        expect(after.seq - before.seq).toBe(0);
        expect(after.index - before.index).toBeGreaterThan(0);
      } finally {
        await client.query('ROLLBACK');
        client.release();
      }
    } finally {
      await pool.query('DELETE FROM outbox');
      await pool.query('ALTER TABLE outbox RESET (autovacuum_enabled)');
    }
  });
});
