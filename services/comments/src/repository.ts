import type { CommentTargetType, MentionKind } from '@recipes/contracts';
import { type ListingRequest, type Position, query, type Queryable, readListing, type Sql, sql } from '@recipes/db';

/** What a comment is on. */
export interface CommentTarget {
  type: CommentTargetType;
  id: string;
}

/** A row of `comments`, as the domain sees it. */
export interface CommentRecord {
  id: string;
  authorId: string;
  content: string;
  createdAt: string;
  /** Null until the author edits it. */
  editedAt: string | null;
  /** The top-level comment it replies to; null for a top-level comment. */
  parentId: string | null;
  /** Its live replies; 0 for a reply. */
  replyCount: number;
}

export const columns = `id, author_id AS "authorId", content, iso_timestamp(created_at) AS "createdAt", iso_timestamp(edited_at) AS "editedAt",
                       parent_id AS "parentId", reply_count AS "replyCount"`;

/** The mentions in a comment on each kind of target are of this kind, and kept in its store. */
export const mentionKindOf: Record<CommentTargetType, MentionKind> = {
  recipe: 'recipe_comment',
  collection: 'collection_comment',
  post: 'post_comment',
};

/** The mention store of each kind (migrations/002_mention_stores.sql). */
export const mentionStores: Record<MentionKind, string> = {
  recipe_comment: 'recipe_comment_mentions',
  collection_comment: 'collection_comment_mentions',
  post_comment: 'post_comment_mentions',
};

/**
 * The SQL that sets this transaction's correlation id, read by the mention removal trigger (`write_event`,
 * migrations/007).
 */
const setCorrelation = (correlationId: string): Sql => sql`set_correlation_id(${correlationId})`;

/** Names the request behind this transaction's changes, for the events the mention removal trigger writes. */
export async function setCorrelationId(db: Queryable, correlationId: string): Promise<void> {
  const { text, values } = query(sql`SELECT ${setCorrelation(correlationId)}`);
  await db.query(text, values);
}

/**
 * A comment with what it is on and its author as this service's users read model has them (null when it does not
 * know them yet): a comment as the API shows it.
 */
export interface CommentWithAuthor extends CommentRecord {
  targetType: CommentTargetType;
  targetId: string;
  author: { id: string; username: string; avatarUrl: string | null } | null;
}

/** Which of a target's comments a listing keeps (docs/api.md §11.4): all, or the top-level ones. */
export interface CommentFilter {
  topLevelOnly: boolean;
}

const listedColumns = `c.id, c.author_id AS "authorId", c.content, iso_timestamp(c.created_at) AS "createdAt",
                iso_timestamp(c.edited_at) AS "editedAt", c.target_type AS "targetType", c.target_id AS "targetId",
                c.parent_id AS "parentId", c.reply_count AS "replyCount", u.username, u.avatar_url AS "avatarUrl"`;

/** A row of `listedColumns`: the author's name and avatar as the users read model has them, or null. */
type ListedRow = Omit<CommentWithAuthor, 'author'> & { username: string | null; avatarUrl: string | null };

const withAuthorRow = ({ username, avatarUrl, ...record }: ListedRow): CommentWithAuthor => ({
  ...record,
  author: username === null ? null : { id: record.authorId, username, avatarUrl },
});

/** A listing's page and total, each comment with its author from the users read model (`readListing`). */
async function readComments(
  db: Queryable,
  where: (alias: string) => string,
  values: unknown[],
  request: ListingRequest,
): Promise<{ comments: CommentWithAuthor[]; total: number; next: Position | null }> {
  const { rows, total, next } = await readListing<ListedRow>(
    db,
    {
      count: `SELECT count(*)::int AS total FROM comments WHERE ${where('')}`,
      columns: listedColumns,
      from: `FROM comments c LEFT JOIN users u ON u.id = c.author_id WHERE ${where('c.')}`,
      order: { at: 'c.created_at', id: 'c.id', idType: 'uuid', direction: 'asc' },
    },
    values,
    request,
  );
  return { comments: rows.map(withAuthorRow), total, next };
}

/**
 * One page of the target's comments (or of its top-level ones, `filter`), oldest first (comments of the
 * same instant by id), by number or after a position (a keyset seek on `comments_page_idx`, or
 * `comments_top_level_page_idx`), each with its author from the users read model (a table
 * `directoryTables` declares), and how many the listing holds in all: one statement, so the page and its
 * total agree (`readListing`).
 */
export async function findCommentPage(
  db: Queryable,
  target: CommentTarget,
  filter: CommentFilter,
  request: ListingRequest,
): Promise<{ comments: CommentWithAuthor[]; total: number; next: Position | null }> {
  // Written into the SQL, so that the planner sees which partial index matches.
  const where = (c: string) =>
    `${c}target_type = $1 AND ${c}target_id = $2 AND ${c}deleted_at IS NULL${filter.topLevelOnly ? ` AND ${c}parent_id IS NULL` : ''}`;
  return readComments(db, where, [target.type, target.id], request);
}

/**
 * One page of the replies to the comment `parentId`, oldest first, as `findCommentPage` (on `comments_replies_idx`).
 */
export async function findReplyPage(
  db: Queryable,
  parentId: string,
  request: ListingRequest,
): Promise<{ comments: CommentWithAuthor[]; total: number; next: Position | null }> {
  return readComments(db, (c) => `${c}parent_id = $1 AND ${c}deleted_at IS NULL`, [parentId], request);
}

/** The live comment `id`, wherever it is; undefined when there is none. */
export async function findComment(db: Queryable, id: string): Promise<CommentRecord | undefined> {
  const { rows } = await db.query<CommentRecord>(
    `SELECT ${columns} FROM comments WHERE id = $1 AND deleted_at IS NULL`,
    [id],
  );
  return rows[0];
}

/**
 * The live comment `id`, wherever it is, as a listing shows it (`listedColumns`): by its primary key, one statement;
 * undefined when there is none.
 */
export async function findListedComment(db: Queryable, id: string): Promise<CommentWithAuthor | undefined> {
  const { rows } = await db.query<ListedRow>(
    `SELECT ${listedColumns} FROM comments c LEFT JOIN users u ON u.id = c.author_id
      WHERE c.id = $1 AND c.deleted_at IS NULL`,
    [id],
  );
  return rows[0] && withAuthorRow(rows[0]);
}

/**
 * Comments on `target` found by their keys alone, whatever plan a connection keeps for the statement (libs/db
 * prepares every one, and a connection keeps the plan it makes without the values): the target is compared with IS
 * NOT DISTINCT FROM and nothing is said of deleted_at, since no index serves either. Otherwise the page indexes of
 * live comments could serve the look-up, and did: made while the table was young (before autovacuum's first
 * analysis), or for a popular target, the kept plan read every one of its comments for each look-up
 * (test/young-table.query-plans.test.ts, test/repository.query-plans.test.ts). Whether one is live is told once
 * it is found.
 */
export const onTargetByKey = ({ type, id }: CommentTarget): Sql =>
  sql`(target_type, target_id) IS NOT DISTINCT FROM (${type}, ${id}::uuid)`;

/** The live comment `id` on `target`, locked until the transaction ends (`onTargetByKey`); undefined when there is none. */
export async function lockComment(
  db: Queryable,
  target: CommentTarget,
  id: string,
): Promise<CommentRecord | undefined> {
  const { text, values } = query(sql`
    WITH found AS MATERIALIZED (
      SELECT * FROM comments WHERE id = ${id}::uuid AND ${onTargetByKey(target)} FOR UPDATE
    )
    SELECT ${sql([columns])} FROM found WHERE deleted_at IS NULL`);
  const { rows } = await db.query<CommentRecord>(text, values);
  return rows[0];
}

export async function updateContent(db: Queryable, id: string, content: string): Promise<CommentRecord> {
  const { rows } = await db.query<CommentRecord>(
    `UPDATE comments SET content = $2, edited_at = date_trunc('milliseconds', now()) WHERE id = $1 RETURNING ${columns}`,
    [id, content],
  );
  return rows[0]!;
}

/**
 * What every statement that deletes comments sets: when, and no text left (migrations/013: a deleted comment keeps
 * its id, target, author, thread and times, never its words).
 */
export const DELETED = `deleted_at = date_trunc('milliseconds', now()), content = ''`;

/** Marks the comment deleted, its text gone; returns when, as the API shows timestamps. */
export async function markDeleted(db: Queryable, id: string): Promise<string> {
  const { rows } = await db.query<{ deletedAt: string }>(
    `UPDATE comments SET ${DELETED} WHERE id = $1 RETURNING iso_timestamp(deleted_at) AS "deletedAt"`,
    [id],
  );
  return rows[0]!.deletedAt;
}

/** The users the comment mentions now, in the kind's store. */
export async function mentionedUsers(db: Queryable, kind: MentionKind, commentId: string): Promise<string[]> {
  const { rows } = await db.query<{ userId: string }>(
    `SELECT mentioned_user_id AS "userId" FROM ${mentionStores[kind]} WHERE comment_id = $1`,
    [commentId],
  );
  return rows.map((row) => row.userId);
}

/** Every user the comment has mentioned, in any of its versions (`ever_mentioned`). */
export async function everMentioned(db: Queryable, commentId: string): Promise<Set<string>> {
  const { rows } = await db.query<{ userId: string }>(
    `SELECT user_id AS "userId" FROM ever_mentioned WHERE comment_id = $1`,
    [commentId],
  );
  return new Set(rows.map((row) => row.userId));
}

/** Adds users the comment mentions for the first time to its `ever_mentioned`. */
export async function rememberMentioned(db: Queryable, commentId: string, userIds: string[]): Promise<void> {
  if (userIds.length === 0) return;
  await db.query(`INSERT INTO ever_mentioned (comment_id, user_id) SELECT $1, unnest($2::uuid[])`, [
    commentId,
    userIds,
  ]);
}

/** Takes mentions out of the kind's store; its trigger writes the retraction event for each. */
export async function deleteMentions(
  db: Queryable,
  kind: MentionKind,
  commentId: string,
  userIds: string[],
): Promise<void> {
  if (userIds.length === 0) return;
  await db.query(`DELETE FROM ${mentionStores[kind]} WHERE comment_id = $1 AND mentioned_user_id = ANY($2::uuid[])`, [
    commentId,
    userIds,
  ]);
}

/** A comment as the API shows it, and what it is on: a row of a user's data export. */
export interface ExportedComment {
  id: string;
  content: string;
  createdAt: string;
  editedAt: string | null;
  parentId: string | null;
  replyCount: number;
  author: { id: string; username: string; avatarUrl: string | null };
  targetType: CommentTargetType;
  targetId: string;
}

/** The author's live comments after `after` by id (docs/api.md §11.2). */
export async function findCommentsOfAuthorAfter(
  db: Queryable,
  authorId: string,
  after: string | null,
  limit: number,
): Promise<ExportedComment[]> {
  const { rows } = await db.query<ExportedComment>(
    `SELECT c.id, c.content, iso_timestamp(c.created_at) AS "createdAt", iso_timestamp(c.edited_at) AS "editedAt",
            c.parent_id AS "parentId", c.reply_count AS "replyCount",
            json_build_object('id', u.id, 'username', u.username, 'avatarUrl', u.avatar_url) AS author,
            c.target_type AS "targetType", c.target_id AS "targetId"
       FROM comments c JOIN users u ON u.id = c.author_id
      WHERE c.author_id = $1 AND c.deleted_at IS NULL AND ($2::uuid IS NULL OR c.id > $2) ORDER BY c.id LIMIT $3`,
    [authorId, after, limit],
  );
  return rows;
}
