import { newId } from '@recipes/contracts';
import type { Queryable } from '@recipes/db';
import { explainGenericPlan } from '@recipes/testing';
import { migratedPool } from '@recipes/testing/service';
import { beforeAll, describe, expect, it } from 'vitest';
import { findGroupPage } from '../src/repository/groups.js';
import * as repository from '../src/repository/notifications.js';
import { markRead } from '../src/repository/reads.js';
import { findSince } from '../src/repository/streams.js';
import { notificationsService } from '../src/service.js';

/**
 * The plans of the service's own queries (the repository's SQL, run through EXPLAIN ANALYZE) on a table
 * with a heavy user, a light one and many others: what each query touches must not grow with the
 * number of notifications the caller has.
 */
const pool = migratedPool(notificationsService);
const heavy = newId();
const light = newId();
const HEAVY_ROWS = 200_000;
const OTHER_USERS = 20_000;

beforeAll(async () => {
  const actor = newId();
  // The heavy user: half their notifications read. The others: five each. The light user: ten.
  await pool.query(
    `INSERT INTO notifications (id, recipient_id, type, actor_id, content_type, content_id, comment_id, is_read, created_at, source_event_id)
     SELECT gen_random_uuid(), recipient, 'mention_recipe_comment', $3, 'recipe', gen_random_uuid(), gen_random_uuid(),
            g % 2 = 0, timestamptz '2026-01-01' + g * interval '1 second', gen_random_uuid()
       FROM (SELECT $1::uuid AS recipient, g FROM generate_series(1, $4::int) AS g
             UNION ALL SELECT $2::uuid, g FROM generate_series(1, 10) AS g
             UNION ALL SELECT ('00000000-0000-4000-8000-' || lpad(to_hex(g / 5), 12, '0'))::uuid, g FROM generate_series(0, $5::int * 5 - 1) AS g) AS seed`,
    [heavy, light, actor, HEAVY_ROWS, OTHER_USERS],
  );
  await pool.query(
    `INSERT INTO notification_counts (recipient_id, total, unread)
     SELECT recipient_id, count(*), count(*) FILTER (WHERE NOT is_read) FROM notifications GROUP BY recipient_id`,
  );
  await pool.query('ANALYZE notifications, notification_counts');
}, 120_000);

interface PlanNode {
  'Node Type': string;
  'Index Name'?: string;
  'Relation Name'?: string;
  'Actual Rows': number;
  'Index Cond'?: string;
  'Actual Loops'?: number;
  'Shared Hit Blocks': number;
  'Shared Read Blocks': number;
  Plans?: PlanNode[];
}

const nodesOf = (node: PlanNode): PlanNode[] => [node, ...(node.Plans ?? []).flatMap(nodesOf)];

/** Runs `query` (a repository function) with EXPLAIN ANALYZE in front of its SQL; returns the plan's nodes. */
async function planOf(query: (db: Queryable) => Promise<unknown>): Promise<PlanNode[]> {
  let plan: PlanNode | undefined;
  const explaining = {
    query: async (text: string, values?: unknown[]) => {
      const result = await pool.query(`EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) ${text}`, values);
      plan = result.rows[0]['QUERY PLAN'][0].Plan;
      // Enough of a result for the repository function to return.
      return { rows: [{ updated: 0 }], rowCount: 0 };
    },
  } as unknown as Queryable;
  await query(explaining);
  return nodesOf(plan!);
}

/** No filter: the whole listing. */
const all = { unreadOnly: false };

const blocksOf = (nodes: PlanNode[]) => nodes[0]!['Shared Hit Blocks'] + nodes[0]!['Shared Read Blocks'];
const scans = (nodes: PlanNode[]) => nodes.filter((node) => node['Node Type'].includes('Scan'));

async function someIdsOf(recipientId: string, count: number): Promise<string[]> {
  const { rows } = await pool.query<{ id: string }>(
    'SELECT id FROM notifications WHERE recipient_id = $1 AND NOT is_read ORDER BY created_at LIMIT $2',
    [recipientId, count],
  );
  return rows.map((row) => row.id);
}

describe('query plans', () => {
  it('reads page 1 straight off the listing index, the same few entries for 200,000 notifications as for 10, and its total by primary key', async () => {
    const plans = await Promise.all(
      [heavy, light].map((user) => planOf((db) => repository.findPage(db, user, all, { limit: 20, offset: 0 }))),
    );
    for (const nodes of plans) {
      expect(nodes.map((node) => node['Node Type'])).not.toContain('Sort');
      const [scan, ...others] = scans(nodes).filter((node) => node['Relation Name'] === 'notifications');
      expect(others).toEqual([]);
      expect(scan).toMatchObject({ 'Node Type': 'Index Scan', 'Index Name': 'notifications_listing_idx' });
      // The page and one more, which says whether another page follows.
      expect(scan!['Actual Rows']).toBeLessThanOrEqual(21);
      expect(scans(nodes).filter((node) => node['Relation Name'] !== 'notifications')).toEqual([
        expect.objectContaining({
          'Node Type': 'Index Scan',
          'Index Name': 'notification_counts_pkey',
          'Actual Rows': 1,
        }),
      ]);
    }
    const [heavyPage, lightPage] = plans.map(blocksOf);
    expect(heavyPage).toBeLessThanOrEqual(lightPage! + 15);
  });

  it('reads a page deep in the listing by cursor as it reads page 1: a range of the listing index from the position, no OFFSET', async () => {
    const { rows } = await pool.query<{ at: string; id: string }>(
      `SELECT to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS at, id FROM notifications
        WHERE recipient_id = $1 ORDER BY created_at DESC, id DESC OFFSET 150000 LIMIT 1`,
      [heavy],
    );
    const texts: string[] = [];
    const nodes = await planOf((db) =>
      repository.findPage(
        { query: (text: string, values: unknown[]) => (texts.push(text), db.query(text, values)) } as Queryable,
        heavy,
        all,
        { limit: 20, after: rows[0]! },
      ),
    );
    expect(texts.join('\n')).not.toMatch(/OFFSET/i);
    expect(nodes.map((node) => node['Node Type'])).not.toContain('Sort');
    const [scan, ...others] = scans(nodes).filter((node) => node['Relation Name'] === 'notifications');
    expect(others).toEqual([]);
    expect(scan).toMatchObject({ 'Node Type': 'Index Scan', 'Index Name': 'notifications_listing_idx' });
    expect(scan!['Index Cond']).toMatch(/ROW\(created_at, id\) < ROW/);
    expect(scan!['Actual Rows']).toBeLessThanOrEqual(21);
    const firstPage = blocksOf(await planOf((db) => repository.findPage(db, heavy, all, { limit: 20, offset: 0 })));
    expect(blocksOf(nodes)).toBeLessThanOrEqual(firstPage + 15);
  });

  it('reads the unread, by page or by cursor, off the unread index: 21 entries however many are read, the total from the counts row', async () => {
    const { rows } = await pool.query<{ at: string; id: string }>(
      `SELECT to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS at, id FROM notifications
        WHERE recipient_id = $1 AND NOT is_read ORDER BY created_at DESC, id DESC OFFSET 50000 LIMIT 1`,
      [heavy],
    );
    for (const request of [
      { limit: 20, offset: 0 },
      { limit: 20, after: rows[0]! },
    ]) {
      const nodes = await planOf((db) => repository.findPage(db, heavy, { unreadOnly: true }, request));
      expect(nodes.map((node) => node['Node Type'])).not.toContain('Sort');
      const [scan, ...others] = scans(nodes).filter((node) => node['Relation Name'] === 'notifications');
      expect(others).toEqual([]);
      expect(scan).toMatchObject({
        'Node Type': 'Index Scan',
        'Index Name': 'notifications_unread_listing_idx',
        'Actual Rows': 21,
      });
      expect(scans(nodes).filter((node) => node['Relation Name'] !== 'notifications')).toEqual([
        expect.objectContaining({ 'Index Name': 'notification_counts_pkey', 'Actual Rows': 1 }),
      ]);
    }
  });

  it('looks up the latest notification and the actors of the groups on the page only, on the group index', async () => {
    const nodes = await planOf((db) =>
      findGroupPage(db, heavy, { unreadOnly: false }, { limit: 20, offset: 0 }, undefined),
    );
    const lookups = nodes.filter((node) => node['Index Name'] === 'notifications_group_idx');
    expect(lookups.length).toBeGreaterThanOrEqual(2);
    // Each runs once per group shown (and the one more): 21 loops, not one per group of the 200,000.
    for (const lookup of lookups) expect(lookup['Actual Loops']).toBeLessThanOrEqual(21);
  });

  it('answers the unread count and the total with one primary-key look-up, scanning no notification', async () => {
    for (const user of [heavy, light]) {
      const nodes = await planOf((db) => repository.findCounts(db, user));
      expect(scans(nodes)).toEqual([
        expect.objectContaining({
          'Node Type': 'Index Scan',
          'Index Name': 'notification_counts_pkey',
          'Actual Rows': 1,
        }),
      ]);
      expect(nodes.map((node) => node['Relation Name'])).not.toContain('notifications');
    }
  });

  it('marks read by primary key, touching only the ids asked for', async () => {
    const ids = await someIdsOf(heavy, 20);
    const nodes = await planOf((db) => markRead(db, heavy, ids));
    const indexes = nodes.filter((node) => node['Index Name']).map((node) => [node['Index Name'], node['Actual Rows']]);
    // The planner may visit the 20 rows through the index directly or through a bitmap of it.
    expect(indexes.sort()).toEqual([
      ['notification_counts_pkey', 1],
      ['notifications_pkey', 20],
    ]);
    expect(nodes.map((node) => node['Node Type'])).not.toContain('Seq Scan');
  });

  it('keeps the counts equal to the rows', async () => {
    const { rows } = await pool.query(
      `SELECT c.total, c.unread, count(n.*)::int AS rows, (count(n.*) FILTER (WHERE NOT n.is_read))::int AS unread_rows
         FROM notification_counts c JOIN notifications n USING (recipient_id)
        WHERE c.recipient_id = $1 GROUP BY c.total, c.unread`,
      [heavy],
    );
    const [counts] = rows;
    expect(counts.total).toBe(counts.rows);
    expect(counts.unread).toBe(counts.unread_rows);
  });
});

describe('a stream’s catch-up, as the plan the connection keeps (generic), on a young table', () => {
  // Planned without the values, on a table not yet analysed (as after a deployment, or while it grows), a partial
  // index of the recipient's notifications looked as cheap as the range of their sequence, and each catch-up
  // read all of the recipient's notifications.
  const young = migratedPool(notificationsService);
  const RECIPIENTS = 20;
  const EACH = 3_000;
  const streamer = '00000000-0000-4000-8000-000000000001';

  beforeAll(async () => {
    await young.query(
      `INSERT INTO notifications (id, recipient_id, type, actor_id, content_type, content_id, comment_id, created_at, source_event_id, sequence)
       SELECT gen_random_uuid(), ('00000000-0000-4000-8000-' || lpad(to_hex(r), 12, '0'))::uuid, 'mention_recipe_comment',
              gen_random_uuid(), 'recipe', gen_random_uuid(), gen_random_uuid(),
              timestamptz '2026-01-01' + g * interval '1 second', gen_random_uuid(), g
         FROM generate_series(1, $1::int) AS r, generate_series(1, $2::int) AS g`,
      [RECIPIENTS, EACH],
    );
    await young.query(
      `INSERT INTO notification_counts (recipient_id, total, unread, last_sequence)
       SELECT recipient_id, count(*), count(*), max(sequence) FROM notifications GROUP BY recipient_id`,
    );
  }, 60_000);

  it('reads what came after the stream’s place off the sequence index, not the recipient’s 3,000', async () => {
    const plan = await explainGenericPlan(young, (db: Queryable) => findSince(db, streamer, EACH - 5, 100), {
      lastSequence: EACH,
      unread: EACH,
      id: null,
    });
    const indexes = plan.flatMap((node) =>
      node['Index Name']?.startsWith('notifications_') ? [node['Index Name']] : [],
    );
    expect(indexes).toEqual(['notifications_sequence_idx', 'notifications_retraction_sequence_idx']);
    expect(plan[0]!['Shared Hit Blocks']).toBeLessThan(100);
  });
});
