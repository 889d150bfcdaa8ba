import type { Queryable } from '@recipes/db';
import { explainGenericPlan } from '@recipes/testing';
import { migratedPool } from '@recipes/testing/service';
import type pg from 'pg';
import { beforeAll, describe, expect, it } from 'vitest';
import { findPostingContext } from '../src/posting.js';
import { lockComment } from '../src/repository.js';
import { commentsService } from '../src/service.js';
import { lockInThread } from '../src/thread-repository.js';
import { commentsScanned, explainPosting, postingContextBuffers } from './posting-plans.js';

/**
 * A connection keeps the plan it made for a statement while the comments were few (a deployment's first minutes,
 * before any analysis), and the table grows under it: storing, editing or deleting a comment still finds the
 * comments it names by their keys, never among every live comment. The table is not analysed meanwhile, as it is not between autovacuum's
 * rounds; a new analysis would make the plan anew.
 */
const target = '0190f5a4-1c2d-7e3f-8a9b-000000000101';
const author = '0190f5a4-1c2d-7e3f-8a9b-0000000001aa';
const threadTop = '0190f5a4-1c2d-7e3f-8a9b-000000000102';
const GROWN_TO = 20_000;

/** A database of its own, with the target and no comment yet: each case plans on a young table. */
function youngDatabase() {
  const pool = migratedPool(commentsService);
  beforeAll(async () => {
    await pool.query(
      `INSERT INTO content_items (id, content_type, author_id, title, deleted, revision, created_at)
       VALUES ($1, 'recipe', $2, 'Young', false, 1, now())`,
      [target, author],
    );
    // Otherwise an analysis could come between the plan and its run, and make it anew.
    await pool.query('ALTER TABLE comments SET (autovacuum_enabled = false)');
  });
  return pool;
}

/** The target gets `GROWN_TO` live comments, the thread's top-level one among them, the last in the page indexes. */
async function grow(pool: pg.Pool): Promise<void> {
  await pool.query(
    `INSERT INTO comments (id, target_type, target_id, author_id, content, created_at)
     VALUES ($1, 'recipe', $2, $3, 'Top', now())`,
    [threadTop, target, author],
  );
  await pool.query(
    `INSERT INTO comments (id, target_type, target_id, author_id, content, created_at)
     SELECT gen_random_uuid(), 'recipe', $1, $2, 'Comment ' || n, date_trunc('milliseconds', now()) - n * interval '1 second'
       FROM generate_series(2, $3::int) AS n`,
    [target, author, GROWN_TO],
  );
}

describe('what posting a reply reads first, as `posting_context` planned on a young table and run once it has grown', () => {
  const pool = youngDatabase();

  it(`finds the comment replied to among ${GROWN_TO.toLocaleString('en')} by its key, touching a few buffers`, async () => {
    const client = await pool.connect();
    try {
      const buffers = await postingContextBuffers(
        client,
        { recipeId: target, author, names: [], parentId: threadTop },
        () => grow(pool),
      );
      expect(buffers).toBeLessThan(60);
      const context = await findPostingContext(client, 'recipe', target, author, [], threadTop);
      expect(context.parent).toEqual({ id: threadTop, authorId: author, parentId: null });
    } finally {
      client.release();
    }
  });
});

describe('storing a comment, as planned on a young table and run once it has grown (generic)', () => {
  const cases = [
    { case: 'a top-level comment', thread: undefined, pool: youngDatabase() },
    { case: 'a reply', thread: { repliedToId: threadTop, topLevelId: threadTop }, pool: youngDatabase() },
  ];
  it.each(cases)(
    `stores $case among ${GROWN_TO.toLocaleString('en')} comments reading them by key only`,
    async ({ thread, pool }) => {
      const plan = await explainPosting(
        pool,
        author,
        { target: { type: 'recipe', id: target }, content: 'New', thread },
        () => grow(pool),
      );
      expect(commentsScanned(plan)).toContain('comments_pkey');
      expect(commentsScanned(plan).every((index) => index === 'comments_pkey')).toBe(true);
      expect(plan[0]!['Shared Hit Blocks']).toBeLessThan(200);
    },
  );
});

describe('locking a comment to edit or delete it, as planned on a young table and run once it has grown (generic)', () => {
  const cases = [
    { case: 'to edit it (lockComment)', lock: lockComment, pool: youngDatabase() },
    { case: 'to delete it with its thread (lockInThread)', lock: lockInThread, pool: youngDatabase() },
  ];
  it.each(cases)(
    `finds the comment $case among ${GROWN_TO.toLocaleString('en')} by its key`,
    async ({ lock, pool }) => {
      const plan = await explainGenericPlan(
        pool,
        (db: Queryable) => lock(db, { type: 'recipe', id: target }, threadTop),
        {},
        () => grow(pool),
      );
      expect(commentsScanned(plan)).toContain('comments_pkey');
      expect(commentsScanned(plan).every((index) => index === 'comments_pkey')).toBe(true);
      expect(plan[0]!['Shared Hit Blocks']).toBeLessThan(60);
    },
  );
});
