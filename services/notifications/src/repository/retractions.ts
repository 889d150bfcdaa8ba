import type { Queryable } from '@recipes/db';
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
 * Retracts the recipient's live notifications `which` selects (SQL over `notifications`, with `$1` the
 * recipient and `params` from `$3`), takes them off their counts, and gives each retraction a place in
 * their sequence after everything stored before (migrations/004), in one statement: run in a transaction
 * that holds the recipient's lock (`lockRecipient`), so that the places commit in order, as a new
 * notification's do. `also` is a further CTE of the same statement, if any.
 */
async function retractWhere(db: Queryable, recipientId: string, retractedAt: string, which: string, params: unknown[], also = ''): Promise<Retracted | undefined> {
  const { rows } = await db.query<Retracted>(
    `WITH targets AS (
       SELECT id, is_read, row_number() OVER (ORDER BY sequence, id) AS step
         FROM notifications WHERE recipient_id = $1 AND retracted_at IS NULL AND ${which}
     ), retracted AS (
       UPDATE notifications n
          SET retracted_at = $2, retraction_sequence = (SELECT last_sequence FROM notification_counts WHERE recipient_id = $1) + t.step
         FROM targets t WHERE n.id = t.id
       RETURNING n.id, n.retraction_sequence AS sequence, t.is_read
     )${also}
     UPDATE notification_counts
        SET total = total - (SELECT count(*) FROM retracted), unread = unread - (SELECT count(*) FROM retracted WHERE NOT is_read),
            last_sequence = last_sequence + (SELECT count(*) FROM retracted), version = version + 1
      WHERE recipient_id = $1 AND EXISTS (SELECT 1 FROM retracted)
     RETURNING unread, EXISTS (SELECT 1 FROM open_streams WHERE recipient_id = $1) AS "streamOpen",
               (SELECT json_agg(json_build_object('id', id, 'sequence', sequence) ORDER BY sequence) FROM retracted) AS retractions`,
    [recipientId, retractedAt, ...params],
  );
  return rows[0];
}

/**
 * Retracts the notification of a mention taken back, and takes it off its recipient's counts. When the
 * mention's notification is not there yet (its event comes later), `tombstone` is stored already
 * retracted in its place, so that the mention never notifies. Takes the recipient's lock (after the
 * comment's, `lockCommentNotifications`); run in a transaction.
 */
export async function retractMention(db: Queryable, id: string, sourceEventId: string, tombstone: NewNotification, retractedAt: string): Promise<Retracted | undefined> {
  await lockRecipient(db, tombstone.recipientId);
  return retractWhere(
    db,
    tombstone.recipientId,
    retractedAt,
    'comment_id = $8',
    [id, tombstone.type, tombstone.actorId, tombstone.contentType, tombstone.contentId, tombstone.commentId, tombstone.createdAt, sourceEventId],
    `, tombstone AS (
       INSERT INTO notifications (id, recipient_id, type, actor_id, content_type, content_id, comment_id, created_at, source_event_id, retracted_at)
       SELECT $3, $1, $4, $5, $6, $7, $8, $9, $10, $2
        WHERE NOT EXISTS (SELECT 1 FROM notifications WHERE recipient_id = $1 AND comment_id = $8)
       ON CONFLICT DO NOTHING
     )`,
  );
}

/** A recipe, post or collection. */
export interface ContentRef {
  type: TargetType;
  id: string;
}

/**
 * Records `content` as deleted, so that nothing about it is stored from now on (see `insertNotification`),
 * and retracts every notification about it (tags, and mentions in its comments), each recipient's in
 * turn, in id order so that two deletions never wait for each other's recipients. Run in a transaction.
 */
export async function retractAboutContent(db: Queryable, content: ContentRef, retractedAt: string): Promise<Map<string, Retracted>> {
  await db.query(`SELECT ${contentLock('$1', '$2')}`, [content.type, content.id]);
  await db.query('INSERT INTO deleted_content (content_type, content_id) VALUES ($1, $2) ON CONFLICT DO NOTHING', [content.type, content.id]);
  const { rows } = await db.query<{ recipientId: string }>(
    `SELECT DISTINCT recipient_id AS "recipientId" FROM notifications
      WHERE content_id = $1 AND content_type = $2 AND retracted_at IS NULL ORDER BY recipient_id`,
    [content.id, content.type],
  );
  const retracted = new Map<string, Retracted>();
  for (const { recipientId } of rows) {
    await lockRecipient(db, recipientId);
    const done = await retractWhere(db, recipientId, retractedAt, 'content_id = $3 AND content_type = $4', [content.id, content.type]);
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
export async function retractFromBlocked(db: Queryable, recipientId: string, actorId: string, retractedAt: string): Promise<Retracted | undefined> {
  await lockRecipient(db, recipientId);
  return retractWhere(
    db,
    recipientId,
    retractedAt,
    `actor_id = $3 AND EXISTS (SELECT 1 FROM user_relations r WHERE r.user_id = $1 AND r.target_id = $3
                                  AND (r.blocked OR notifications.created_at <= r.last_unblocked_at))`,
    [actorId],
  );
}

/**
 * Retracts every live notification of the recipient that `actorId` caused: the actor deleted their
 * account (docs/api.md §11.2). Takes the recipient's lock; run in a transaction.
 */
export async function retractFromActor(db: Queryable, recipientId: string, actorId: string, retractedAt: string): Promise<Retracted | undefined> {
  await lockRecipient(db, recipientId);
  return retractWhere(db, recipientId, retractedAt, 'actor_id = $3', [actorId]);
}
