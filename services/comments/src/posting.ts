import type { CommentTargetType, EventEnvelope, MentionKind, UserSnapshot } from '@recipes/contracts';
import {
  type Budget,
  type BudgetSpending,
  type Queryable,
  query,
  type Sql,
  spendingCtes,
  spendingOf,
  sql,
} from '@recipes/db';
import { outboxRow } from '@recipes/outbox';
import type { MentionedUser } from './mentions.js';
import { type mentionEvents, storingMentions } from './mention-events.js';
import { columns, type CommentRecord, type CommentTarget, onTargetByKey } from './repository.js';

/** What the read models know of a target: its owner, whether it is deleted, and whether its owner blocks the caller. */
export interface KnownTarget {
  ownerId: string;
  deleted: boolean;
  ownerBlocksCaller: boolean;
}

/** What posting a comment needs to know, as far as this service's read models know it. */
export interface PostingContext {
  author: UserSnapshot | undefined;
  target: KnownTarget | undefined;
  /** By lower-cased username; names the read model does not know are left out. */
  named: Map<string, MentionedUser>;
  /** The live comment of the same target a reply names, if it names one that is there. */
  parent: ParentComment | undefined;
}

/** A comment replied to: its author, and the top-level comment it is or replies to. */
export interface ParentComment {
  id: string;
  authorId: string;
  parentId: string | null;
}

/** Where the read models keep a target of the type (as `posting_context` reads it). */
const targetRow: Record<CommentTargetType, (id: string | null) => Sql> = {
  recipe: (id) => sql`content_items WHERE id = ${id}::uuid AND content_type = 'recipe'`,
  post: (id) => sql`content_items WHERE id = ${id}::uuid AND content_type = 'post'`,
  collection: (id) => sql`known_collections WHERE id = ${id}::uuid`,
};

/**
 * The author, the target, its owner's block, the users `names` name with theirs, and the comment
 * replied to (`parentId`, if any), from the read models and the comments in one call of `posting_context`
 * (migrations/011_posting_context.sql, which keeps one plan for it; 012 finds the comment replied to by its key),
 * where reading each took a round trip of its own.
 */
export async function findPostingContext(
  db: Queryable,
  targetType: CommentTargetType,
  targetId: string | null,
  authorId: string,
  names: string[],
  parentId: string | null = null,
): Promise<PostingContext> {
  const { rows } = await db.query<{
    author: UserSnapshot | null;
    target: KnownTarget | null;
    named: ({ name: string } & MentionedUser)[];
    parent: ParentComment | null;
  }>('SELECT author, target, named, parent FROM posting_context($1, $2::uuid, $3::uuid, $4::text[], $5::uuid)', [
    targetType,
    targetId,
    authorId,
    names,
    parentId,
  ]);
  const { author, target: known, named, parent } = rows[0]!;
  return {
    author: author ?? undefined,
    target: known ?? undefined,
    named: new Map(named.map(({ name, id, blocksAuthor }) => [name, { id, blocksAuthor }])),
    parent: parent ?? undefined,
  };
}

/** A new comment, and the users it mentions: a row each in the store of `mentionKind`, and their events. */
export interface NewComment {
  id: string;
  target: CommentTarget;
  authorId: string;
  content: string;
  mentionKind: MentionKind;
  mentionedUserIds: string[];
  /** Its `comment.created`, and a `comment.mention.created` per user it mentions (`mentionEvents`). */
  events: { created: EventEnvelope; mentions: ReturnType<typeof mentionEvents> };
  /**
   * For a reply: the comment replied to, and its top-level comment (the same one for a reply to a top-level comment).
   */
  thread?: { repliedToId: string; topLevelId: string } | undefined;
}

/**
 * The target as the read models know it, live, locked against its deletion being taken in
 * (`removeCommentsOn` in src/deleted-targets.ts): a deletion that commits first leaves the comment
 * unstored; a comment that commits first is found by the deletion, and removed.
 */
const liveTarget = ({ type, id }: CommentTarget) => sql`SELECT 1 FROM ${targetRow[type](id)} AND NOT deleted FOR SHARE`;

/** What a comment's mentions cost: `amount` of `budget`, from the author's (`key`) spending. */
export interface Payment {
  budget: Budget;
  key: string;
  amount: number;
}

/**
 * The comments a reply is stored under, locked for the statement's transaction, top-level first (as a deletion
 * locks them, src/thread-repository.ts): live, on the target, the top-level one top-level. `placed` has a row
 * when all of them are there (always for a top-level comment, which names none). Each is found by its key alone
 * (`onTargetByKey`), and whether it is live or top-level is told once it is found and locked. `replied` waits on
 * `top_level` (its condition), so the locks come in that order; a top-level comment reads neither.
 */
function placedInThread(target: CommentTarget, thread: NewComment['thread']): Sql {
  const onTarget = onTargetByKey(target);
  return sql`top_level AS (
       SELECT deleted_at, parent_id FROM comments WHERE id = ${thread?.topLevelId ?? null}::uuid AND ${onTarget} FOR UPDATE
     ), replied AS (
       SELECT deleted_at FROM comments WHERE id = ${thread?.repliedToId ?? null}::uuid AND ${onTarget}
          AND EXISTS (SELECT 1 FROM top_level)
          FOR UPDATE
     ), placed AS (
       SELECT 1 WHERE ${thread === undefined}::boolean
          OR (EXISTS (SELECT 1 FROM top_level WHERE deleted_at IS NULL AND parent_id IS NULL)
              AND EXISTS (SELECT 1 FROM replied WHERE deleted_at IS NULL))
     )`;
}

/**
 * What storing a comment came to: the stored comment (none when the target or the comment replied to is deleted, or the
 * payment refused), and the payment's spending.
 */
export interface StoredComment {
  record: CommentRecord | undefined;
  targetLive: boolean;
  /** Whether the comments a reply names were there (always for a top-level comment). */
  placed: boolean;
  spending: BudgetSpending | undefined;
}

/**
 * Stores a new comment with its events, its mentions with theirs (`storingMentions`: what notifies each
 * user), remembers each user mentioned (`ever_mentioned`), and pays for the mentions (`payment`, from the
 * author's budget; nothing is stored when refused), in one statement: atomic without a transaction block,
 * and one round trip where BEGIN, the spending, the inserts and COMMIT took six. The events' `createdAt`
 * become the rows'. Nothing is stored, or spent, when the target is deleted (`liveTarget`), nor a reply when
 * a comment it is placed under is (`placedInThread`); a reply stored counts on its top-level comment in the
 * same statement.
 */
export async function insertComment(db: Queryable, comment: NewComment, payment?: Payment): Promise<StoredComment> {
  const { id, target, authorId, content, mentionKind, mentionedUserIds, thread, events } = comment;
  const [eventId, eventType, payload] = outboxRow(events.created);
  const paying =
    payment &&
    spendingCtes(
      payment.budget,
      payment.key,
      payment.amount,
      sql`EXISTS (SELECT 1 FROM live) AND EXISTS (SELECT 1 FROM placed)`,
    );
  const { text, values } = query(sql`
    WITH live AS (${liveTarget(target)}),
     ${placedInThread(target, thread)},
     ${paying ? sql`${paying},` : sql``}
     comment AS (
       INSERT INTO comments (id, target_type, target_id, author_id, content, parent_id, replied_to_id)
       SELECT ${id}::uuid, ${target.type}, ${target.id}::uuid, ${authorId}::uuid, ${content}, ${thread?.topLevelId ?? null}::uuid,
              ${thread?.repliedToId ?? null}::uuid
         FROM live, placed${paying ? sql`, (SELECT 1 FROM spent) AS paid` : sql``}
       RETURNING ${sql([columns])}
     ), counted AS (
       UPDATE comments SET reply_count = reply_count + 1 WHERE id = (SELECT "parentId" FROM comment)
     ), ${storingMentions(mentionKind, events.mentions, sql`EXISTS (SELECT 1 FROM comment)`)},
     remembered AS (
       INSERT INTO ever_mentioned (comment_id, user_id) SELECT id, unnest(${mentionedUserIds}::uuid[]) FROM comment
     ), announced AS (
       INSERT INTO outbox (id, type, payload)
       SELECT ${eventId}::uuid, ${eventType}, jsonb_set(${payload}::jsonb, '{data,createdAt}', to_jsonb("createdAt")) FROM comment
     )
     SELECT (SELECT row_to_json(comment) FROM comment) AS comment, EXISTS (SELECT 1 FROM live) AS "targetLive", EXISTS (SELECT 1 FROM placed) AS placed
            ${paying ? sql`, spent, "resetSeconds" FROM spending` : sql``}`);
  const { rows } = await db.query<{
    comment: CommentRecord | null;
    targetLive: boolean;
    placed: boolean;
    spent?: number | null;
    resetSeconds?: number;
  }>(text, values);
  const { comment: record, targetLive, placed, spent, resetSeconds } = rows[0]!;
  return {
    record: record ?? undefined,
    targetLive,
    placed,
    spending: payment
      ? spendingOf(payment.budget.max, { spent: spent ?? null, resetSeconds: resetSeconds! })
      : undefined,
  };
}
