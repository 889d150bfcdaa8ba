// The floors' comments process (bench/reference/write-path.mjs): POST /api/recipes/:id/comments with a
// bearer token checked as the read reference checks it; the comment, its mention rows and its events
// written by one statement (one transaction: the outbox); the relay in the same process, woken by that
// commit. The plain floor writes a `comment.mention.created` per mention; the architecture's also writes
// the `comment.created` the system writes beside them (data as services/comments builds it: the recipe's
// owner and the mentioned users, for the owner's notification and the comment count).
import { newId } from '../../libs/contracts/dist/events/envelope.js';
import { declareConsumerQueue } from '../../libs/messaging/dist/topology.js';
import { author, idParams, nullableString, object, problem, sendProblem, statement, string } from './common.mjs';
import { outboxRelay } from './write-path-broker.mjs';

export const MENTION_CREATED = 'comment.mention.created';
export const COMMENT_CREATED = 'comment.created';
/** A @name as the comments service reads it (src/mentions.ts). */
const MENTION = /(?<![A-Za-z0-9_])@([A-Za-z0-9_]{3,30})(?![A-Za-z0-9_])/g;
export const iso = (column) => `to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

/** An event's envelope as `write_event` builds it (services/comments/migrations/007_event_envelope.sql). */
const envelope = (type, data) =>
  `jsonb_build_object('id', event_id, 'type', '${type}', 'version', 1, 'occurredAt', ${iso('created_at')},
                      'producer', 'comments', 'correlationId', $6::text, 'data', ${data})`;

/**
 * The live recipe (locked against its deletion, as the service does), the comment, a mention row per named
 * user the read model knows, and an event per mention (and `comment.created` when `announceCreated`),
 * atomic as one statement is.
 */
const storeComment = (announceCreated) =>
  statement(
    'store-comment',
    `WITH live AS (
       SELECT author_id AS owner_id FROM content_items WHERE id = $2 AND content_type = 'recipe' AND NOT deleted FOR SHARE
     ), comment AS (
       INSERT INTO comments (id, target_type, target_id, author_id, content)
       SELECT $1, 'recipe', $2, $3, $4 FROM live
       RETURNING id, created_at
     ), mentioned AS (
       INSERT INTO recipe_comment_mentions (comment_id, mentioned_user_id)
       SELECT comment.id, users.id FROM comment, users WHERE lower(users.username) = ANY($5::text[]) AND users.id <> $3
       RETURNING id, mentioned_user_id, created_at
     ), announced AS (
       INSERT INTO outbox (id, type, payload)
       SELECT event_id, '${MENTION_CREATED}', ${envelope(
         MENTION_CREATED,
         `jsonb_build_object('kind', 'recipe_comment', 'mentionId', id, 'mentionedUserId', mentioned_user_id,
                             'actorId', $3::uuid, 'commentId', $1::uuid, 'targetType', 'recipe', 'targetId', $2::uuid,
                             'createdAt', ${iso('created_at')})`,
       )}
         FROM (SELECT gen_random_uuid() AS event_id, * FROM mentioned) AS mention
       RETURNING 1
     )${
       announceCreated
         ? `, created AS (
       INSERT INTO outbox (id, type, payload)
       SELECT event_id, '${COMMENT_CREATED}', ${envelope(
         COMMENT_CREATED,
         `jsonb_build_object('id', $1::uuid, 'targetType', 'recipe', 'targetId', $2::uuid, 'authorId', $3::uuid,
                             'createdAt', ${iso('created_at')}, 'parentId', null, 'targetOwnerId', owner_id,
                             'repliedToAuthorId', null,
                             'mentionedUserIds', (SELECT coalesce(jsonb_agg(mentioned_user_id), '[]') FROM mentioned))`,
       )}
         FROM (SELECT gen_random_uuid() AS event_id, created_at, owner_id FROM comment, live) AS new_comment
       RETURNING 1
     )`
         : ''
     }
     SELECT ${iso('comment.created_at')} AS "createdAt", writer.username, writer.avatar_url AS "avatarUrl",
            (SELECT count(*) FROM announced)::int${announceCreated ? ' + (SELECT count(*) FROM created)::int' : ''} AS events
       FROM comment LEFT JOIN users writer ON writer.id = $3`,
  );

const createdComment = object({
  comment: object({ id: string, content: string, createdAt: string, editedAt: nullableString, author }),
});

/**
 * The comments role on `app`: `queues` are the consumers' queues with the types each takes, declared before
 * the first event goes out, as the services' publishers see to.
 */
export async function startComments(app, { pool, connection, exchange, queues, announceCreated }) {
  const channel = await connection.createConfirmChannel();
  for (const [queue, types] of Object.entries(queues)) await declareConsumerQueue(channel, exchange, queue, types);
  const relay = outboxRelay(pool, channel, exchange);
  relay();
  const store = storeComment(announceCreated);

  const body = {
    type: 'object',
    required: ['content'],
    properties: { content: { type: 'string', minLength: 1, maxLength: 2000 } },
  };
  app.post(
    '/api/recipes/:id/comments',
    { schema: { params: idParams, body, response: { 201: createdComment, 401: problem, 404: problem } } },
    async (request, reply) => {
      if (!request.caller) return sendProblem(reply, 401, 'A bearer token is required');
      const { content } = request.body;
      const names = [...new Set(Array.from(content.matchAll(MENTION), (match) => match[1].toLowerCase()))];
      const id = newId();
      const { rows } = await pool.query(store(id, request.params.id, request.caller.id, content, names, request.id));
      if (!rows[0]) return sendProblem(reply, 404, 'Recipe not found');
      const { createdAt, events, username, avatarUrl } = rows[0];
      if (events > 0) relay();
      reply.code(201);
      return {
        comment: { id, content, createdAt, editedAt: null, author: { id: request.caller.id, username, avatarUrl } },
      };
    },
  );
}
