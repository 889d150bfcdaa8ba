import { type Queryable, query, type Sql, sql } from '@recipes/db';
import { contentLock, lockRecipient } from './notifications.js';
import type { NewNotification, TargetType } from './rows.js';

/*
 * Retractions: a notification taken back stays, marked, out of its recipient's listing and counts, and
 * its retraction takes a place in their sequence, where their streams find it (migrations/004).
 */

/** A notification retracted: its id, and the place its retraction took in the recipient's sequence. */
export interface Retraction {
  id: string;
  sequence: number;
}

/** What a retraction did to one recipient's notifications; undefined when it found nothing to retract. */
export interface Retracted {
  retractions: Retraction[];
  unread: number;
  streamOpen: boolean;
}

/**
 * Retracts the recipient's live notifications `which` selects (a condition on `notifications`), takes them
 * off their counts, and gives each retraction a place in their sequence after everything stored before
 * (migrations/004), in one statement: run in a transaction that holds the recipient's lock
 * (`lockRecipient`), so that the places commit in order, as a new notification's do. `also` is a further
 * CTE of the same statement, if any.
 */
async function retractWhere(
  db: Queryable,
  recipientId: string,
  retractedAt: string,
  which: Sql,
  also: Sql = sql``,
): Promise<Retracted | undefined> {
  const { text, values } = query(sql`
    WITH targets AS (
       SELECT id, is_read, row_number() OVER (ORDER BY sequence, id) AS step
         FROM notifications WHERE recipient_id = ${recipientId} AND retracted_at IS NULL AND ${which}
     ), retracted AS (
       UPDATE notifications n
          SET retracted_at = ${retractedAt},
              retraction_sequence = (SELECT last_sequence FROM notification_counts WHERE recipient_id = ${recipientId}) + t.step
         FROM targets t WHERE n.id = t.id
       RETURNING n.id, n.retraction_sequence AS sequence, t.is_read
     )${also}
     UPDATE notification_counts
        SET total = total - (SELECT count(*) FROM retracted), unread = unread - (SELECT count(*) FROM retracted WHERE NOT is_read),
            last_sequence = last_sequence + (SELECT count(*) FROM retracted), version = version + 1
      WHERE recipient_id = ${recipientId} AND EXISTS (SELECT 1 FROM retracted)
     RETURNING unread, EXISTS (SELECT 1 FROM open_streams WHERE recipient_id = ${recipientId}) AS "streamOpen",
               (SELECT json_agg(json_build_object('id', id, 'sequence', sequence) ORDER BY sequence) FROM retracted) AS retractions`);
  const { rows } = await db.query<Retracted>(text, values);
  return rows[0];
}

/**
 * Retracts the notification of a mention taken back, and takes it off its recipient's counts. When the
 * mention's notification is not there yet (its event comes later), `tombstone` is stored already
 * retracted in its place, so that the mention never notifies. Takes the recipient's lock (after the
 * comment's, `lockCommentNotifications`); run in a transaction.
 */
export async function retractMention(
  db: Queryable,
  id: string,
  sourceEventId: string,
  tombstone: NewNotification,
  retractedAt: string,
): Promise<Retracted | undefined> {
  const { recipientId, type, actorId, contentType, contentId, commentId, createdAt } = tombstone;
  await lockRecipient(db, recipientId);
  return retractWhere(
    db,
    recipientId,
    retractedAt,
    // Its own type only: the comment may have notified the user otherwise (docs/api.md §11.4), which stays.
    sql`comment_id = ${commentId} AND type = ${type}`,
    sql`, tombstone AS (
       INSERT INTO notifications (id, recipient_id, type, actor_id, content_type, content_id, comment_id, created_at, source_event_id, retracted_at)
       SELECT ${id}::uuid, ${recipientId}::uuid, ${type}, ${actorId}::uuid, ${contentType}, ${contentId}::uuid, ${commentId}::uuid,
              ${createdAt}::timestamptz, ${sourceEventId}::uuid, ${retractedAt}::timestamptz
        WHERE NOT EXISTS (SELECT 1 FROM notifications WHERE recipient_id = ${recipientId} AND comment_id = ${commentId})
       ON CONFLICT DO NOTHING
     )`,
  );
}

/** A comment, and what it is on. */
export interface CommentRef {
  id: string;
  targetType: TargetType;
  targetId: string;
}

/**
 * Records the comment as deleted, so that nothing from it is stored from now on (see `insertNotifications`),
 * and retracts every notification it caused, each recipient's in turn, in id order. The lock of what it is
 * on comes first, as `store_notifications` takes it, so that a notification being stored is either seen
 * here or sees the deletion. Run in a transaction.
 */
export async function retractAboutComment(
  db: Queryable,
  comment: CommentRef,
  retractedAt: string,
): Promise<Map<string, Retracted>> {
  await db.query(`SELECT ${contentLock('$1', '$2')}`, [comment.targetType, comment.targetId]);
  await db.query('INSERT INTO deleted_comments (comment_id) VALUES ($1) ON CONFLICT DO NOTHING', [comment.id]);
  const { rows } = await db.query<{ recipientId: string }>(
    `SELECT DISTINCT recipient_id AS "recipientId" FROM notifications WHERE comment_id = $1 AND retracted_at IS NULL ORDER BY recipient_id`,
    [comment.id],
  );
  const retracted = new Map<string, Retracted>();
  for (const { recipientId } of rows) {
    await lockRecipient(db, recipientId);
    const done = await retractWhere(db, recipientId, retractedAt, sql`comment_id = ${comment.id}`);
    if (done) retracted.set(recipientId, done);
  }
  return retracted;
}

/** A recipe, post or collection. */
export interface ContentRef {
  type: TargetType;
  id: string;
}

/**
 * Records `content` as deleted, so that nothing about it is stored from now on (see `insertNotifications`),
 * and retracts every notification about it (tags, and mentions in its comments), each recipient's in
 * turn, in id order so that two deletions never wait for each other's recipients. Run in a transaction.
 */
export async function retractAboutContent(
  db: Queryable,
  content: ContentRef,
  retractedAt: string,
): Promise<Map<string, Retracted>> {
  await db.query(`SELECT ${contentLock('$1', '$2')}`, [content.type, content.id]);
  await db.query('INSERT INTO deleted_content (content_type, content_id) VALUES ($1, $2) ON CONFLICT DO NOTHING', [
    content.type,
    content.id,
  ]);
  const { rows } = await db.query<{ recipientId: string }>(
    `SELECT DISTINCT recipient_id AS "recipientId" FROM notifications
      WHERE content_id = $1 AND content_type = $2 AND retracted_at IS NULL ORDER BY recipient_id`,
    [content.id, content.type],
  );
  const retracted = new Map<string, Retracted>();
  for (const { recipientId } of rows) {
    await lockRecipient(db, recipientId);
    const done = await retractWhere(
      db,
      recipientId,
      retractedAt,
      sql`content_id = ${content.id} AND content_type = ${content.type}`,
    );
    if (done) retracted.set(recipientId, done);
  }
  return retracted;
}

/**
 * Retracts the recipient's notifications caused by `actorId` that a block of theirs covers, by the pair's
 * state in the read model (libs/directory's `user_relations`, just updated in this transaction): all of
 * them while the block holds, and those made before the latest block ended once it has, so that a block
 * and an unblock handled in either order retract the same (docs/api.md §10). Takes the recipient's lock;
 * run in a transaction.
 */
export async function retractFromBlocked(
  db: Queryable,
  recipientId: string,
  actorId: string,
  retractedAt: string,
): Promise<Retracted | undefined> {
  await lockRecipient(db, recipientId);
  return retractWhere(
    db,
    recipientId,
    retractedAt,
    sql`actor_id = ${actorId} AND EXISTS (SELECT 1 FROM user_relations r WHERE r.user_id = ${recipientId} AND r.target_id = ${actorId}
                                  AND (r.blocked OR notifications.created_at <= r.last_unblocked_at))`,
  );
}

/**
 * Retracts every live notification of the recipient that `actorId` caused: the actor deleted their
 * account (docs/api.md §11.2). Takes the recipient's lock; run in a transaction.
 */
export async function retractFromActor(
  db: Queryable,
  recipientId: string,
  actorId: string,
  retractedAt: string,
): Promise<Retracted | undefined> {
  await lockRecipient(db, recipientId);
  return retractWhere(db, recipientId, retractedAt, sql`actor_id = ${actorId}`);
}
