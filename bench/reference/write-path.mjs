// A mentioned comment's way from its POST to the mentioned user's stream, in plain Node, with the
// guarantees the system gives it and nothing more: the floor of outbox → broker → inbox on this machine.
// Two processes, as the comments and notifications services are two, from this one file (ROLE):
// - `comments`: POST /api/recipes/:id/comments with a bearer token checked as the read reference checks
//   it; the comment, its mention rows and their `comment.mention.created` events written by one
//   statement (one transaction: the outbox); a relay in the same process, woken by that commit, that
//   publishes each event with a publisher confirm and then deletes its row.
// - `notifications`: consumes the events (manual acks, at most 16 unacknowledged, as the services'
//   consumers); one statement records the event id (the inbox: a redelivery changes nothing), stores the
//   notification and the recipient's counts and sequence; the ack follows the commit; then the
//   notification and the unread count go to the recipient's open streams in this process
//   (GET /api/notifications/stream, text/event-stream).
// The tables are copies of the services' (bench/write-path.mjs creates them in SCHEMA), the queue is
// declared as the services declare theirs (a quorum queue with its dead-letter queue). No logging, no
// metrics, no blocks, mutes, budgets or comment counts. Each process: ROLE, PORT, DATABASE_URL, AMQP_URL,
// EXCHANGE, SCHEMA and JWT_PUBLIC_KEY_FILE from the environment.
import { readFileSync } from 'node:fs';
import amqp from 'amqplib';
import Fastify from 'fastify';
import pg from 'pg';
import { newId } from '../../libs/contracts/dist/events/envelope.js';
import { declareConsumerQueue } from '../../libs/messaging/dist/topology.js';
import {
  author,
  idParams,
  nullableString,
  object,
  problem,
  registerAuth,
  sendProblem,
  statement,
  string,
} from './common.mjs';

const { ROLE, PORT, DATABASE_URL, AMQP_URL, EXCHANGE, SCHEMA, JWT_PUBLIC_KEY_FILE } = process.env;
const MENTION_CREATED = 'comment.mention.created';
const QUEUE = `${EXCHANGE}.notifications`;
const PREFETCH = 16;
const RELAY_BATCH = 500;
const RELAY_POLL_MS = 1_000;
/** A @name as the comments service reads it (src/mentions.ts). */
const MENTION = /(?<![A-Za-z0-9_])@([A-Za-z0-9_]{3,30})(?![A-Za-z0-9_])/g;
const iso = (column) => `to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

const pool = new pg.Pool({
  connectionString: DATABASE_URL,
  max: 10,
  options: `-c search_path=${SCHEMA}`,
  application_name: `bench-write-path-${ROLE}`,
});
pool.on('error', () => undefined);

// The live recipe (locked against its deletion, as the service does), the comment, a mention row per
// named user the read model knows, and an event per mention, atomic as one statement is.
const storeComment = statement(
  'store-comment',
  `WITH comment AS (
     INSERT INTO comments (id, target_type, target_id, author_id, content)
     SELECT $1, 'recipe', $2, $3, $4 FROM (SELECT 1 FROM content_items WHERE id = $2 AND content_type = 'recipe' AND NOT deleted FOR SHARE) AS live
     RETURNING id, created_at
   ), mentioned AS (
     INSERT INTO recipe_comment_mentions (comment_id, mentioned_user_id)
     SELECT comment.id, users.id FROM comment, users WHERE lower(users.username) = ANY($5::text[]) AND users.id <> $3
     RETURNING id, mentioned_user_id, created_at
   ), announced AS (
     INSERT INTO outbox (id, type, payload)
     SELECT event_id, '${MENTION_CREATED}', jsonb_build_object(
              'id', event_id, 'type', '${MENTION_CREATED}', 'version', 1, 'occurredAt', ${iso('created_at')},
              'producer', 'comments', 'correlationId', $6::text,
              'data', jsonb_build_object('kind', 'recipe_comment', 'mentionId', id, 'mentionedUserId', mentioned_user_id,
                                         'actorId', $3::uuid, 'commentId', $1::uuid, 'targetType', 'recipe', 'targetId', $2::uuid,
                                         'createdAt', ${iso('created_at')}))
       FROM (SELECT gen_random_uuid() AS event_id, * FROM mentioned) AS mention
     RETURNING 1
   )
   SELECT ${iso('comment.created_at')} AS "createdAt", (SELECT count(*) FROM announced)::int AS events, writer.username, writer.avatar_url AS "avatarUrl"
     FROM comment LEFT JOIN users writer ON writer.id = $3`,
);
const pendingEvents = statement(
  'pending-events',
  'SELECT id, type, payload::text AS payload FROM outbox WHERE available_at <= now() ORDER BY created_at, id LIMIT $1',
);
const deletePublished = statement('delete-published', 'DELETE FROM outbox WHERE id = ANY($1::uuid[])');

// The inbox row first: on a redelivery it is not written, and nothing after it is.
const storeNotification = statement(
  'store-notification',
  `WITH first_delivery AS (
     INSERT INTO processed_events (event_id, event_type) VALUES ($1, $2) ON CONFLICT (event_id) DO NOTHING RETURNING event_id
   ), counted AS (
     INSERT INTO notification_counts AS counts (recipient_id, total, unread, last_sequence, version)
     SELECT $3, 1, 1, 1, 1 FROM first_delivery
     ON CONFLICT (recipient_id) DO UPDATE
       SET total = counts.total + 1, unread = counts.unread + 1, last_sequence = counts.last_sequence + 1, version = counts.version + 1
     RETURNING unread, last_sequence
   ), stored AS (
     INSERT INTO notifications (id, recipient_id, type, actor_id, content_type, content_id, comment_id, created_at, source_event_id, sequence)
     SELECT $4, $3, $5, $6, $7, $8, $9, $10, $1, last_sequence FROM counted
     RETURNING id
   )
   SELECT unread FROM counted`,
);
const findUnread = statement('find-unread', 'SELECT unread FROM notification_counts WHERE recipient_id = $1');

const createdComment = object({
  comment: object({ id: string, content: string, createdAt: string, editedAt: nullableString, author }),
});
const sseEvent = (name, data, id) =>
  `${id === undefined ? '' : `id: ${id}\n`}event: ${name}\ndata: ${JSON.stringify(data)}\n\n`;

/** Publishes the outbox, oldest first, a batch at a time; a row goes once the broker has confirmed its event. */
function outboxRelay(channel) {
  let running = false;
  let again = false;
  const publish = (row) =>
    new Promise((resolve, reject) => {
      channel.publish(
        EXCHANGE,
        row.type,
        Buffer.from(row.payload),
        { persistent: true, contentType: 'application/json', messageId: row.id, type: row.type },
        (error) => (error ? reject(error) : resolve(row.id)),
      );
    });
  async function relay() {
    // One loop at a time; a wake-up while it runs makes it look once more.
    if (running) {
      again = true;
      return;
    }
    running = true;
    try {
      do {
        again = false;
        const { rows } = await pool.query(pendingEvents(RELAY_BATCH));
        if (rows.length === 0) break;
        const confirmed = (await Promise.allSettled(rows.map(publish))).flatMap((result) =>
          result.status === 'fulfilled' ? [result.value] : [],
        );
        if (confirmed.length > 0) await pool.query(deletePublished(confirmed));
        // Unconfirmed rows stay for the poll; a full batch says more may wait.
        if (confirmed.length < rows.length) break;
        if (rows.length === RELAY_BATCH) again = true;
      } while (again);
    } catch {
      // The database or the broker away: the poll tries again.
    } finally {
      running = false;
    }
  }
  setInterval(relay, RELAY_POLL_MS).unref();
  return relay;
}

async function startComments(app) {
  const connection = await amqp.connect(AMQP_URL, { noDelay: true });
  const channel = await connection.createConfirmChannel();
  // The consumer's queue exists before the first event goes out, as the services' publishers see to.
  await declareConsumerQueue(channel, EXCHANGE, QUEUE, [MENTION_CREATED]);
  const relay = outboxRelay(channel);
  relay();

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
      const { rows } = await pool.query(
        storeComment(id, request.params.id, request.caller.id, content, names, request.id),
      );
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

async function startNotifications(app) {
  const streams = new Map(); // recipient id → their open responses
  const push = (recipientId, text) => {
    for (const out of streams.get(recipientId) ?? []) out.write(text);
  };

  const connection = await amqp.connect(AMQP_URL, { noDelay: true });
  const channel = await connection.createChannel();
  await declareConsumerQueue(channel, EXCHANGE, QUEUE, [MENTION_CREATED]);
  await channel.prefetch(PREFETCH);
  await channel.consume(QUEUE, async (message) => {
    if (message === null) return; // the queue deleted as the bench cleans up
    const event = JSON.parse(message.content);
    const { data } = event;
    const notification = {
      id: newId(),
      type: `mention_${data.kind}`,
      actorId: data.actorId,
      contentType: data.targetType,
      contentId: data.targetId,
      commentId: data.commentId,
      createdAt: data.createdAt,
    };
    let stored;
    try {
      const { id, type, actorId, contentType, contentId, commentId, createdAt } = notification;
      ({
        rows: [stored],
      } = await pool.query(
        storeNotification(
          event.id,
          event.type,
          data.mentionedUserId,
          id,
          type,
          actorId,
          contentType,
          contentId,
          commentId,
          createdAt,
        ),
      ));
    } catch {
      // Delivered again later; the queue's delivery limit dead-letters one that never stores.
      channel.nack(message);
      return;
    }
    channel.ack(message);
    // A redelivery of an event stored before has nothing new to show.
    if (stored)
      push(
        data.mentionedUserId,
        sseEvent('notification', { ...notification, isRead: false }, notification.id) +
          sseEvent('unread_count', { count: stored.unread }),
      );
  });

  app.get('/api/notifications/stream', { schema: { response: { 401: problem } } }, async (request, reply) => {
    if (!request.caller) return sendProblem(reply, 401, 'A bearer token is required');
    const recipientId = request.caller.id;
    const { rows } = await pool.query(findUnread(recipientId));
    reply.hijack();
    const out = reply.raw;
    out.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    out.write(sseEvent('unread_count', { count: rows[0]?.unread ?? 0 }));
    if (!streams.has(recipientId)) streams.set(recipientId, new Set());
    streams.get(recipientId).add(out);
    out.on('close', () => {
      streams.get(recipientId).delete(out);
      if (streams.get(recipientId).size === 0) streams.delete(recipientId);
    });
  });
}

const app = Fastify({ logger: false });
await registerAuth(app, readFileSync(JWT_PUBLIC_KEY_FILE, 'utf8'));
await { comments: startComments, notifications: startNotifications }[ROLE](app);
await app.listen({ host: '127.0.0.1', port: Number(PORT) });
