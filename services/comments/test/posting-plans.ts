import { commentCreated, createEvent, newId } from '@recipes/contracts';
import type { Queryable } from '@recipes/db';
import { explainGenericPlan, type PlanNode } from '@recipes/testing';
import type pg from 'pg';
import { mentionEvents } from '../src/mention-events.js';
import { findPostingContext, insertComment, type NewComment } from '../src/posting.js';

/**
 * Explains the generic plan of `insertComment` storing `comment` by `author` (who owns its target too), mentioning
 * one user and paying for it; with `meanwhile`, the plan made before it runs (`explainGenericPlan`).
 */
export function explainPosting(
  pool: pg.Pool,
  author: string,
  comment: Omit<NewComment, 'id' | 'authorId' | 'mentionKind' | 'mentionedUserIds' | 'events'>,
  meanwhile?: () => Promise<void>,
): Promise<PlanNode[]> {
  const id = newId();
  const mentioned = [newId()];
  const { target, thread } = comment;
  const data = {
    id,
    targetType: target.type,
    targetId: target.id,
    authorId: author,
    createdAt: new Date().toISOString(),
    parentId: thread?.topLevelId ?? null,
    targetOwnerId: author,
    repliedToAuthorId: null,
    mentionedUserIds: mentioned,
  };
  const events = {
    created: createEvent(commentCreated, data, { producer: 'comments', correlationId: 'plans' }),
    mentions: mentionEvents({ id, authorId: author, target, mentionKind: 'recipe_comment' }, mentioned, 'plans'),
  };
  return explainGenericPlan(
    pool,
    (db: Queryable) =>
      insertComment(
        db,
        { ...comment, id, authorId: author, mentionKind: 'recipe_comment', mentionedUserIds: mentioned, events },
        { budget: { name: 'mentions', max: 100, windowMs: 60_000 }, key: author, amount: 1 },
      ),
    { comment: null, targetLive: false, placed: false, spent: null, resetSeconds: 1 },
    meanwhile,
  );
}

/** The indexes of `comments` (or its table, `Seq Scan`) a plan reads, in order. */
export const commentsScanned = (plan: PlanNode[]) =>
  plan.flatMap((node) =>
    node['Index Name']?.startsWith('comments_')
      ? [node['Index Name']]
      : node['Node Type'] === 'Seq Scan' && node['Relation Name'] === 'comments'
        ? ['Seq Scan']
        : [],
  );

/**
 * The shared buffers one call of `posting_context` reads on `client`, for a reply by `author` to `parentId` on the
 * recipe `recipeId` naming `names`: after the connection has called it three times (and so compiled and planned
 * it, as after a service's first comments), then `meanwhile`, if given.
 */
export async function postingContextBuffers(
  client: pg.PoolClient,
  { recipeId, author, names, parentId }: { recipeId: string; author: string; names: string[]; parentId: string },
  meanwhile?: () => Promise<void>,
): Promise<number> {
  for (let run = 0; run < 3; run += 1) await findPostingContext(client, 'recipe', recipeId, author, names, parentId);
  await meanwhile?.();
  const explained = await client.query(
    `EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON)
     SELECT * FROM posting_context('recipe', $1::uuid, $2::uuid, $3::text[], $4::uuid)`,
    [recipeId, author, names, parentId],
  );
  const plan = explained.rows[0]['QUERY PLAN'][0].Plan as PlanNode;
  return plan['Shared Hit Blocks']! + (plan['Shared Read Blocks'] ?? 0);
}
