import { createTestDatabase, type TestDatabase } from '@recipes/testing';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  createPool,
  type Pool,
  type PoolClient,
  SharedTransaction,
  withStatement,
  withTransaction,
} from '../src/index.js';

const silent = { info: () => undefined, warn: () => undefined };

let database: TestDatabase;
let pool: Pool;
let otherPool: Pool;

beforeAll(async () => {
  database = await createTestDatabase();
  pool = createPool({ connectionString: database.url, applicationName: 'shared-test', logger: silent });
  otherPool = createPool({ connectionString: database.url, applicationName: 'shared-test-other', logger: silent });
  await pool.query('CREATE TABLE things (id int PRIMARY KEY)');
});
afterAll(async () => {
  await pool.end();
  await otherPool.end();
  await database.drop();
});
beforeEach(async () => {
  await pool.query('TRUNCATE things');
});

const ids = async () =>
  (await pool.query<{ id: number }>('SELECT id FROM things ORDER BY id')).rows.map((row) => row.id);
const pidOf = async (db: Pool | PoolClient) =>
  (await db.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]!.pid;
const insert = (db: PoolClient, id: number) => db.query('INSERT INTO things VALUES ($1)', [id]);

/** A transaction begun by hand, as an owner (the idempotency of a request) begins one, and shared. */
async function owned<T>(
  end: 'COMMIT' | 'ROLLBACK',
  work: (shared: SharedTransaction, client: PoolClient) => Promise<T>,
): Promise<T> {
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    const shared = new SharedTransaction(pool, client);
    const result = await shared.run(() => work(shared, client));
    await shared.close();
    await client.query(end);
    return result;
  } catch (error) {
    await client.query('ROLLBACK');
    throw error;
  } finally {
    client.release();
  }
}

describe('withTransaction inside a shared transaction', () => {
  it('joins it on the same connection, so its writes commit with the owner', async () => {
    await owned('COMMIT', async (_shared, client) => {
      const joinedPid = await withTransaction(pool, async (tx) => {
        await insert(tx, 1);
        return pidOf(tx);
      });
      expect(joinedPid).toBe(await pidOf(client));
      // Not committed by the join: another connection does not see it yet.
      expect(await ids()).toEqual([]);
    });
    expect(await ids()).toEqual([1]);
  });

  it('is rolled back with the owner', async () => {
    await owned('ROLLBACK', async () => {
      await withTransaction(pool, (tx) => insert(tx, 1));
    });
    expect(await ids()).toEqual([]);
  });

  it('rolls back only its own savepoint when it throws, and the owner goes on', async () => {
    await owned('COMMIT', async (_shared, client) => {
      await insert(client, 1);
      const failure = await withTransaction(pool, async (tx) => {
        await insert(tx, 2);
        await insert(tx, 1); // unique violation: the transaction would be aborted without the savepoint
      }).catch((error: unknown) => error);
      expect(failure).toMatchObject({ code: '23505' });
      await withTransaction(pool, (tx) => insert(tx, 3));
    });
    expect(await ids()).toEqual([1, 3]);
  });

  it('nests: an inner failure that the outer catches loses only the inner work', async () => {
    await owned('COMMIT', async () => {
      await withTransaction(pool, async (outer) => {
        await insert(outer, 1);
        await withTransaction(pool, async (inner) => {
          await insert(inner, 2);
          throw new Error('inner fails');
        }).catch(() => undefined);
        await withTransaction(pool, (inner) => insert(inner, 3));
      });
    });
    expect(await ids()).toEqual([1, 3]);
  });

  it('takes turns when joins run at once: one failing never undoes another', async () => {
    await owned('COMMIT', async () => {
      const results = await Promise.allSettled([
        withTransaction(pool, async (tx) => {
          await insert(tx, 1);
          throw new Error('first fails');
        }),
        withTransaction(pool, (tx) => insert(tx, 2)),
        withTransaction(pool, async (tx) => {
          await insert(tx, 3);
          await insert(tx, 4);
        }),
      ]);
      expect(results.map((result) => result.status)).toEqual(['rejected', 'fulfilled', 'fulfilled']);
    });
    expect(await ids()).toEqual([2, 3, 4]);
  });

  it('closes only once the joins under way (and those they nest) have finished, and refuses later ones', async () => {
    const order: string[] = [];
    let release!: () => void;
    const barrier = new Promise<void>((resolve) => (release = resolve));
    await owned('COMMIT', async (shared) => {
      const joined = withTransaction(pool, async (tx) => {
        await insert(tx, 1);
        await barrier;
        // Nested in a join under way: still part of it, so not refused though the owner is closing.
        await withTransaction(pool, (inner) => insert(inner, 2));
        order.push('join finished');
      });
      const closing = shared.close().then(() => order.push('closed'));
      // Every pending callback runs before this: had close not waited, it would have resolved by now.
      await new Promise((resolve) => setImmediate(resolve));
      order.push('released');
      release();
      await Promise.all([joined, closing]);
      await expect(withTransaction(pool, (tx) => insert(tx, 3))).rejects.toThrow(/has ended/);
    });
    expect(order).toEqual(['released', 'join finished', 'closed']);
    expect(await ids()).toEqual([1, 2]);
  });

  it('leaves another pool alone: its transactions are their own', async () => {
    await owned('ROLLBACK', async (_shared, client) => {
      const pid = await withTransaction(otherPool, async (tx) => {
        await insert(tx, 1);
        return pidOf(tx);
      });
      expect(pid).not.toBe(await pidOf(client));
    });
    expect(await ids()).toEqual([1]);
  });

  it('changes nothing outside one: each withTransaction has its own connection and commits by itself', async () => {
    const pids = await Promise.all(
      [1, 2].map((id) => withTransaction(pool, async (tx) => (await insert(tx, id), pidOf(tx)))),
    );
    expect(new Set(pids).size).toBe(2);
    expect(await ids()).toEqual([1, 2]);
  });
});

describe('withStatement', () => {
  it('runs in a shared transaction of its pool, on its connection, and is rolled back with it', async () => {
    await owned('ROLLBACK', async (_shared, client) => {
      const pid = await withStatement(pool, async (db) => (await db.query('INSERT INTO things VALUES (1)'), pidOf(db)));
      expect(pid).toBe(await pidOf(client));
    });
    expect(await ids()).toEqual([]);
  });

  it('outside one, runs straight on the pool and commits by itself', async () => {
    await withStatement(pool, (db) => db.query('INSERT INTO things VALUES (1)'));
    expect(await ids()).toEqual([1]);
  });
});
