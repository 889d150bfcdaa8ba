import type { Queryable } from '@recipes/db';
import { explainQuery, type PlanNode, planNodes } from '@recipes/testing';
import { migratedPool } from '@recipes/testing/service';
import { beforeAll, describe, expect, it } from 'vitest';
import { findPostingContext } from '../src/posting.js';
import { findCommentPage, findReplyPage } from '../src/repository.js';
import { commentsService } from '../src/service.js';
import { commentsScanned, explainPosting, postingContextBuffers } from './posting-plans.js';

/**
 * A target's page of comments is read from `comments_page_idx` whatever the size of the table: seeded
 * with one recipe that has 50,000 comments, one with 10, and 50,000 more spread over 5,000 recipes,
 * posts and collections, then analysed, each listing query is explained as the repository sends it.
 */
const pool = migratedPool(commentsService);

const heavy = '0190f5a4-1c2d-7e3f-8a9b-000000000001';
const light = '0190f5a4-1c2d-7e3f-8a9b-000000000002';
const author = '0190f5a4-1c2d-7e3f-8a9b-0000000000aa';
const HEAVY_COMMENTS = 50_000;
const threaded = '0190f5a4-1c2d-7e3f-8a9b-000000000003';
const threadTop = '0190f5a4-1c2d-7e3f-8a9b-000000000004';
const THREAD_REPLIES = 5_000;

beforeAll(async () => {
  await pool.query(
    `INSERT INTO comments (id, target_type, target_id, author_id, content, created_at)
     SELECT gen_random_uuid(), 'recipe', $1::uuid, $3::uuid, 'Comment ' || n, date_trunc('milliseconds', now()) - n * interval '1 second'
       FROM generate_series(1, $4::int) AS n
     UNION ALL
     SELECT gen_random_uuid(), 'recipe', $2::uuid, $3::uuid, 'Comment ' || n, date_trunc('milliseconds', now()) - n * interval '1 second'
       FROM generate_series(1, 10) AS n
     UNION ALL
     SELECT gen_random_uuid(), (ARRAY['recipe', 'post', 'collection'])[1 + n % 3], md5('t' || n % 5000)::uuid, $3::uuid, 'Comment ' || n,
            date_trunc('milliseconds', now()) - n * interval '1 second'
       FROM generate_series(1, 50000) AS n`,
    [heavy, light, author, HEAVY_COMMENTS],
  );
  // A thread: one top-level comment with 5,000 replies, on a target of its own.
  await pool.query(
    `INSERT INTO comments (id, target_type, target_id, author_id, content, created_at, reply_count)
     VALUES ($1, 'post', $2, $3, 'Top', now() - interval '1 day', $4)`,
    [threadTop, threaded, author, THREAD_REPLIES],
  );
  await pool.query(
    `INSERT INTO comments (id, target_type, target_id, author_id, content, created_at, parent_id)
     SELECT gen_random_uuid(), 'post', $2, $3, 'Reply ' || n, date_trunc('milliseconds', now()) - n * interval '1 second', $1
       FROM generate_series(1, $4::int) AS n`,
    [threadTop, threaded, author, THREAD_REPLIES],
  );
  await pool.query(
    `INSERT INTO content_items (id, content_type, author_id, title, deleted, revision, created_at)
     VALUES ($1, 'recipe', $3, 'Heavy', false, 1, now()), ($2, 'post', $3, 'Threaded', false, 1, now())`,
    [heavy, threaded, author],
  );
  await pool.query('VACUUM ANALYZE comments');
}, 120_000);

const everyComment = { topLevelOnly: false };

/** Explains the one query `run` makes. */
const explain = (run: (db: Queryable) => Promise<unknown>) => explainQuery(pool, run);

/** The nodes under the scans of `comments` as `alias`: the page's are `c`, the count's `comments`. */
const scansAs = (plan: PlanNode[], alias: string) => plan.filter((node) => node.Alias === alias).flatMap(planNodes);
const indexScans = (nodes: PlanNode[]) => nodes.filter((node) => node['Index Name'] !== undefined);

describe('the comment listing’s query plan', () => {
  it('reads page 1 of 50,000 comments as the first 20 entries of the page index, with no sort', async () => {
    const plan = await explain((db) =>
      findCommentPage(db, { type: 'recipe', id: heavy }, everyComment, { limit: 20, offset: 0 }),
    );
    const [scan, ...others] = scansAs(plan, 'c');
    expect(others).toEqual([]);
    expect(scan).toMatchObject({ 'Node Type': 'Index Scan', 'Index Name': 'comments_page_idx' });
    // The page and one more, which says whether another page follows.
    expect(scan!['Actual Rows']).toBeLessThanOrEqual(21);
    expect(plan.some((node) => node['Node Type'] === 'Sort')).toBe(false);
  });

  it('reads a page deep in the 50,000 by cursor as a range of the page index from the position: no OFFSET, no sort, 21 entries', async () => {
    const { rows } = await pool.query<{ at: string; id: string }>(
      `SELECT to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS at, id FROM comments
        WHERE target_type = 'recipe' AND target_id = $1 ORDER BY created_at, id OFFSET 40000 LIMIT 1`,
      [heavy],
    );
    const texts: string[] = [];
    const plan = await explain((db) =>
      findCommentPage(
        { query: (text: string, values: unknown[]) => (texts.push(text), db.query(text, values)) } as Queryable,
        { type: 'recipe', id: heavy },
        everyComment,
        { limit: 20, after: rows[0]! },
      ),
    );
    expect(texts.join('\n')).not.toMatch(/OFFSET/i);
    const [scan, ...others] = scansAs(plan, 'c');
    expect(others).toEqual([]);
    expect(scan).toMatchObject({ 'Node Type': 'Index Scan', 'Index Name': 'comments_page_idx', 'Actual Rows': 21 });
    expect(plan.some((node) => node['Node Type'] === 'Sort')).toBe(false);
  });

  it('reads a page of a target with few comments from the page index too, never scanning the table', async () => {
    const plan = await explain((db) =>
      findCommentPage(db, { type: 'recipe', id: light }, everyComment, { limit: 20, offset: 0 }),
    );
    expect(plan.some((node) => node['Node Type'] === 'Seq Scan')).toBe(false);
    expect(indexScans(scansAs(plan, 'c'))).toEqual([
      expect.objectContaining({ 'Index Name': 'comments_page_idx', 'Actual Rows': 10 }),
    ]);
  });

  it('counts a target’s comments in the same statement from the same index, touching no other target’s entries', async () => {
    for (const [target, count] of [
      [light, 10],
      [heavy, HEAVY_COMMENTS],
    ] as const) {
      const plan = await explain((db) =>
        findCommentPage(db, { type: 'recipe', id: target }, everyComment, { limit: 20, offset: 0 }),
      );
      const [scan, ...others] = indexScans(scansAs(plan, 'comments'));
      expect(others).toEqual([]);
      expect(scan!['Node Type']).toMatch(/^(Index|Index Only|Bitmap Index) Scan$/);
      expect(scan).toMatchObject({ 'Index Name': 'comments_page_idx', 'Actual Rows': count });
    }
  });
});

describe('the top-level and replies listings’ query plans', () => {
  it('reads a page of top-level comments from their own index, counting them there, past a target’s replies', async () => {
    const plan = await explain((db) =>
      findCommentPage(db, { type: 'post', id: threaded }, { topLevelOnly: true }, { limit: 20, offset: 0 }),
    );
    expect(plan.some((node) => node['Node Type'] === 'Seq Scan' || node['Node Type'] === 'Sort')).toBe(false);
    expect(indexScans(scansAs(plan, 'c'))).toEqual([
      expect.objectContaining({ 'Index Name': 'comments_top_level_page_idx', 'Actual Rows': 1 }),
    ]);
    expect(indexScans(scansAs(plan, 'comments'))).toEqual([
      expect.objectContaining({ 'Index Name': 'comments_top_level_page_idx', 'Actual Rows': 1 }),
    ]);
  });

  it('reads a page of 5,000 replies as the first 21 entries of the replies index, with no sort', async () => {
    const plan = await explain((db) => findReplyPage(db, threadTop, { limit: 20, offset: 0 }));
    expect(plan.some((node) => node['Node Type'] === 'Seq Scan' || node['Node Type'] === 'Sort')).toBe(false);
    const [scan, ...others] = indexScans(scansAs(plan, 'c'));
    expect(others).toEqual([]);
    expect(scan).toMatchObject({ 'Index Name': 'comments_replies_idx' });
    expect(scan!['Actual Rows']).toBeLessThanOrEqual(21);
  });
});

describe('storing a comment, as the plan the connection keeps (generic)', () => {
  // Planned without the values, a scan of the target's comments filtered by id looks as cheap as the primary
  // key: on a target with many comments it read every one of them for each comment stored.
  it('finds no comment of the target’s 50,000 for a top-level comment, and touches a few buffers', async () => {
    const plan = await explainPosting(pool, author, { target: { type: 'recipe', id: heavy }, content: 'Top' });
    expect(commentsScanned(plan)).toEqual(['comments_pkey', 'comments_pkey', 'comments_pkey']);
    expect(plan[0]!['Shared Hit Blocks']).toBeLessThan(200);
  });

  it('finds the comment replied to by its key on a target of 5,000 replies', async () => {
    const plan = await explainPosting(pool, author, {
      target: { type: 'post', id: threaded },
      content: 'Reply',
      thread: { repliedToId: threadTop, topLevelId: threadTop },
    });
    expect(commentsScanned(plan)).toEqual(['comments_pkey', 'comments_pkey', 'comments_pkey']);
    expect(plan[0]!['Shared Hit Blocks']).toBeLessThan(200);
  });
});

describe('what posting a comment reads first, as the plan `posting_context` keeps (generic)', () => {
  // The function plans its statement without the values. So planned, the comment replied to could be looked for
  // among every comment of its target (the page index holds the target and the id); it is found by its key.
  it('finds the comment replied to among the target’s 50,000 by its key, touching a few buffers', async () => {
    const client = await pool.connect();
    try {
      const { rows } = await client.query<{ id: string }>(
        `SELECT id FROM comments WHERE target_type = 'recipe' AND target_id = $1 ORDER BY created_at LIMIT 1`,
        [heavy],
      );
      const parentId = rows[0]!.id;
      const buffers = await postingContextBuffers(client, { recipeId: heavy, author, names: ['someone'], parentId });
      expect(buffers).toBeLessThan(60);
      const context = await findPostingContext(client, 'recipe', heavy, author, [], parentId);
      expect(context.parent).toEqual({ id: parentId, authorId: author, parentId: null });
      expect(context.target).toEqual({ ownerId: author, deleted: false, ownerBlocksCaller: false });
    } finally {
      client.release();
    }
  });
});
