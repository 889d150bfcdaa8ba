import { commentMentionCreated, createEvent, type MentionKind, newId } from '@recipes/contracts';
import { identifier, query, type Queryable, type Sql, sql } from '@recipes/db';
import { outboxRow } from '@recipes/outbox';
import { type CommentTarget, mentionStores } from './repository.js';

/** The comment whose mentions are stored. */
export interface MentioningComment {
  id: string;
  authorId: string;
  target: CommentTarget;
  mentionKind: MentionKind;
}

/**
 * The `comment.mention.created` of each user the comment newly mentions: what notifies them (docs/api.md §5).
 * `createdAt` is a placeholder: `storingMentions` writes the stored row's into each.
 */
export function mentionEvents(comment: MentioningComment, userIds: readonly string[], correlationId: string) {
  return userIds.map((mentionedUserId) =>
    createEvent(
      commentMentionCreated,
      {
        kind: comment.mentionKind,
        mentionId: newId(),
        mentionedUserId,
        actorId: comment.authorId,
        commentId: comment.id,
        targetType: comment.target.type,
        targetId: comment.target.id,
        createdAt: new Date().toISOString(),
      },
      { producer: 'comments', correlationId },
    ),
  );
}

/**
 * CTEs (`mention_events`, `mentioned`, `mentions_announced`) that store a row per event of `mentionEvents` in the kind's store
 * and write the event to the outbox, its `createdAt` and `occurredAt` the row's: the mention and what notifies of it
 * in one statement. Nothing is stored unless `onlyIf` holds. (Taking a mention out is announced by the store's
 * trigger `announce_mention_removal`, since several statements delete mentions: edits, deletions, erasure.)
 */
export function storingMentions(
  kind: MentionKind,
  events: ReturnType<typeof mentionEvents>,
  onlyIf: Sql = sql`true`,
): Sql {
  // `outboxRow` checks each against the catalogue, as `enqueue` does.
  const envelopes = `[${events.map((event) => outboxRow(event)[2]).join(',')}]`;
  return sql`mention_events AS (
       SELECT e FROM jsonb_array_elements(${envelopes}::jsonb) AS e
     ), mentioned AS (
       INSERT INTO ${identifier(mentionStores[kind])} (id, comment_id, mentioned_user_id)
       SELECT (e->'data'->>'mentionId')::uuid, (e->'data'->>'commentId')::uuid, (e->'data'->>'mentionedUserId')::uuid
         FROM mention_events
        WHERE ${onlyIf}
       RETURNING id, iso_timestamp(created_at) AS at
     ), mentions_announced AS (
       INSERT INTO outbox (id, type, payload)
       SELECT (e->>'id')::uuid, e->>'type', jsonb_set(jsonb_set(e, '{occurredAt}', to_jsonb(m.at)), '{data,createdAt}', to_jsonb(m.at))
         FROM mention_events JOIN mentioned m ON m.id = (e->'data'->>'mentionId')::uuid
     )`;
}

/** Stores each mention of `events` in the kind's store, with its event (`storingMentions`). */
export async function insertMentions(
  db: Queryable,
  kind: MentionKind,
  events: ReturnType<typeof mentionEvents>,
): Promise<void> {
  if (events.length === 0) return;
  const { text, values } = query(sql`WITH ${storingMentions(kind, events)} SELECT 1`);
  await db.query(text, values);
}
