import type { Queryable } from '@recipes/db';
import { explainGenericPlan } from '@recipes/testing';
import { beforeAll, describe, expect, it } from 'vitest';
import { findPosts } from '../../src/repository/posts.js';
import { findAuthorRecipePage, findRecipeSummaries } from '../../src/repository/recipes.js';
import { contentDatabase } from '../support.js';

/**
 * The listing reads a user's page through the partial index, so page 1 costs the same with a thousand
 * recipes in the table or a million. Shown with the planner's own choice on a realistic table: 20,000
 * recipes of 200 authors, statistics up to date, and no planner settings changed.
 */
const db = contentDatabase();
const author = '0190f5a4-1c2d-7e3f-8a9b-000000000001';
const viewer = '0190f5a4-1c2d-7e3f-8a9b-000000000002';

beforeAll(async () => {
  await db.pool.query(
    `
    INSERT INTO users (id, username, avatar_url, revision)
    SELECT CASE WHEN n = 1 THEN $1::uuid ELSE gen_random_uuid() END, 'author_' || n, NULL, 0 FROM generate_series(1, 200) AS n`,
    [author],
  );
  await db.pool.query(`
    INSERT INTO recipes (id, author_id, title, description, camera_model, film_simulation, created_at, deleted_at)
    SELECT gen_random_uuid(), u.id, CASE WHEN n % 10 = 0 THEN '' ELSE 'Recipe ' || n END, '',
           CASE WHEN n % 10 = 0 THEN '' ELSE 'X-T5' END, CASE WHEN n % 10 = 0 THEN '' ELSE 'Acros' END,
           now() - n * interval '1 minute', CASE WHEN n % 10 = 0 THEN now() END
      FROM users u CROSS JOIN generate_series(1, 100) AS n`);
  await db.pool.query(`
    INSERT INTO recipe_images (recipe_id, position, url) SELECT id, 0, 'https://cdn.example.com/' || id FROM recipes`);
  // Favorites and reposts by other users, as many as the recipes several times over, and the viewer's.
  await db.pool.query(`
    INSERT INTO recipe_favorites (recipe_id, user_id) SELECT r.id, fan.id FROM recipes r CROSS JOIN (SELECT id FROM users LIMIT 3) AS fan`);
  await db.pool.query(`
    INSERT INTO recipe_reposts (recipe_id, user_id) SELECT r.id, fan.id FROM recipes r CROSS JOIN (SELECT id FROM users LIMIT 2) AS fan`);
  await db.pool.query(
    `
    INSERT INTO recipe_favorites (recipe_id, user_id) SELECT id, $1 FROM recipes WHERE author_id = $2`,
    [viewer, author],
  );
  await db.pool.query('VACUUM ANALYZE');
});

interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Index Name'?: string;
  'Index Cond'?: string;
  Plans?: PlanNode[];
}

const nodes = (plan: PlanNode): PlanNode[] => [plan, ...(plan.Plans ?? []).flatMap(nodes)];

/** Runs `query` against the real pool, and returns the plan of every statement it sent. */
async function plansOf(query: (db: Queryable) => Promise<unknown>): Promise<PlanNode[][]> {
  const statements: Array<{ text: string; values: unknown[] }> = [];
  const recorder = {
    query: async (text: string, values: unknown[]) => (statements.push({ text, values }), db.pool.query(text, values)),
  };
  await query(recorder as unknown as Queryable);
  return Promise.all(
    statements.map(async ({ text, values }) => {
      const { rows } = await db.pool.query(`EXPLAIN (FORMAT JSON) ${text}`, values);
      return nodes(rows[0]['QUERY PLAN'][0].Plan);
    }),
  );
}

describe('the recipe listing’s query plan', () => {
  it('reads page 1 of a user’s recipes and counts them through the partial index, with no sequential scan of recipes', async () => {
    const [plan, ...more] = await plansOf((recorder) =>
      findAuthorRecipePage(recorder, author, viewer, { limit: 12, offset: 0 }),
    );
    expect(more).toEqual([]);
    expect(plan!.filter((node) => node['Relation Name'] === 'recipes' && node['Node Type'] === 'Seq Scan')).toEqual([]);
    // Once for the page, once for the count.
    expect(plan!.filter((node) => node['Index Name'] === 'recipes_by_author')).toHaveLength(2);
    // The caller's favorite and repost, and the cover, are index look-ups for the rows of the page only.
    const scanned = plan!.filter((node) => node['Node Type'] === 'Seq Scan').map((node) => node['Relation Name']);
    expect(scanned).not.toContain('recipe_favorites');
    expect(scanned).not.toContain('recipe_reposts');
    expect(scanned).not.toContain('recipe_images');
  });

  it('reads a page after a cursor’s position as a range of recipes_by_author: no OFFSET, no sort', async () => {
    const { next } = await findAuthorRecipePage(db.pool, author, viewer, { limit: 40, offset: 0 });
    const texts: string[] = [];
    const [plan, ...more] = await plansOf((recorder) =>
      findAuthorRecipePage(
        { query: (text: string, values: unknown[]) => (texts.push(text), recorder.query(text, values)) } as Queryable,
        author,
        viewer,
        { limit: 12, after: next! },
      ),
    );
    expect(more).toEqual([]);
    expect(texts.join('\n')).not.toMatch(/OFFSET/i);
    expect(plan!.map((node) => node['Node Type'])).not.toContain('Sort');
    const page = plan!.filter(
      (node) => node['Index Name'] === 'recipes_by_author' && node['Index Cond']?.includes('ROW(created_at, id) < ROW'),
    );
    expect(page).toHaveLength(1);
  });

  it('still answers what the route expects', async () => {
    const { recipes: page, total } = await findAuthorRecipePage(db.pool, author, viewer, { limit: 12, offset: 0 });
    expect(page).toHaveLength(12);
    expect(page.map((recipe) => recipe.title)).toEqual(
      [1, 2, 3, 4, 5, 6, 7, 8, 9, 11, 12, 13].map((n) => `Recipe ${n}`),
    );
    expect(
      page.every((recipe) => recipe.isFavorited && !recipe.isReposted && recipe.coverImageUrl?.startsWith('https://')),
    ).toBe(true);
    expect(total).toBe(90);
    expect(await findAuthorRecipePage(db.pool, author, viewer, { limit: 12, offset: 1200 })).toEqual({
      recipes: [],
      total: 90,
      next: null,
    });
  });
});

describe('the reads by ids’ query plans', () => {
  let recipeIds: string[];
  let postIds: string[];
  beforeAll(async () => {
    await db.pool.query(`
      INSERT INTO posts (id, author_id, title, created_at, deleted_at)
      SELECT gen_random_uuid(), u.id, CASE WHEN n % 10 = 0 THEN '' ELSE 'Post ' || n END, now() - n * interval '1 minute',
             CASE WHEN n % 10 = 0 THEN now() END
        FROM users u CROSS JOIN generate_series(1, 100) AS n`);
    await db.pool.query('VACUUM ANALYZE posts');
    // 50 ids, as many as one request may ask: live, deleted and missing ones, in no order of the table's.
    const sample = async (table: string) =>
      (await db.pool.query<{ id: string }>(`SELECT id FROM ${table} ORDER BY md5(id::text) LIMIT 45`)).rows
        .map((row) => row.id)
        .concat(Array.from({ length: 5 }, (_, n) => `0190f5a4-1c2d-7e3f-8a9b-00000000ff0${n}`));
    recipeIds = await sample('recipes');
    postIds = await sample('posts');
  });

  /** No sequential scan of `table`, which is read by its primary key (`index`). */
  const expectByPrimaryKey = (plan: PlanNode[], table: string, index: string) => {
    expect(plan.filter((node) => node['Relation Name'] === table && node['Node Type'] === 'Seq Scan')).toEqual([]);
    expect(plan.some((node) => node['Index Name'] === index)).toBe(true);
  };

  it('finds 50 recipes in one statement, each by its primary key', async () => {
    const [plan, ...more] = await plansOf((recorder) => findRecipeSummaries(recorder, recipeIds, viewer));
    expect(more).toEqual([]);
    expectByPrimaryKey(plan!, 'recipes', 'recipes_pkey');
    // The caller's favorite and repost are index look-ups for the rows found only.
    const scanned = plan!.filter((node) => node['Node Type'] === 'Seq Scan').map((node) => node['Relation Name']);
    expect(scanned).not.toContain('recipe_favorites');
    expect(scanned).not.toContain('recipe_reposts');
  });

  it('finds 50 posts in one statement, each by its primary key', async () => {
    const [plan, ...more] = await plansOf((recorder) => findPosts(recorder, postIds));
    expect(more).toEqual([]);
    expectByPrimaryKey(plan!, 'posts', 'posts_pkey');
  });

  it('answers the live ones in the order of the ids', async () => {
    const { rows } = await db.pool.query<{ id: string }>(
      'SELECT id FROM recipes WHERE id = ANY($1::uuid[]) AND deleted_at IS NULL',
      [recipeIds],
    );
    const live = new Set(rows.map((row) => row.id));
    const found = await findRecipeSummaries(db.pool, recipeIds, viewer);
    expect(found.map((recipe) => recipe.id)).toEqual(recipeIds.filter((id) => live.has(id)));
    expect(live.size).toBeGreaterThan(30);
    expect(live.size).toBeLessThan(45);
  });

  // Last in the file: explaining a generic plan deallocates the statements the pool's connection had prepared.
  it('keeps both plans for any values, as a connection keeps a prepared statement’s', async () => {
    // What the recording connection of `explainGenericPlan` answers the repository: a row it can read.
    const row = { createdAt: new Date() };
    const recipes = await explainGenericPlan(
      db.pool,
      (recorder: Queryable) => findRecipeSummaries(recorder, recipeIds, viewer),
      row,
    );
    expectByPrimaryKey(recipes, 'recipes', 'recipes_pkey');
    expectByPrimaryKey(
      await explainGenericPlan(db.pool, (recorder: Queryable) => findPosts(recorder, postIds), row),
      'posts',
      'posts_pkey',
    );
  });
});
