// The floors' notifications process (bench/reference/write-path.mjs): consumes the events; one statement
// records the event id (the inbox: a redelivery changes nothing), stores the notification and the
// recipient's counts and sequence; and serves GET /api/notifications/stream (text/event-stream).
//
// The plain floor takes mentions only, and writes each stored notification, taken from its event, to the
// recipient's streams in this process, after the ack: right for one instance only.
//
// The architecture's floor also tells the recipe's owner of the comment (`comment.created`, as the system
// does since docs/api.md §11.4), and wakes its streams as the design needs it with any number of
// instances (docs/architecture.md §9): a recipient's streams may be held by any instance, so every
// instance must learn that something was stored for them, and what a stream sends is read from PostgreSQL
// in sequence order (never taken from the prompt), so that a late, lost or repeated prompt costs nothing
// but a read. The system writes a `notification.created` to the outbox in the storing transaction, which
// its relay then claims, publishes and deletes. This floor gives the same guarantee without the outbox:
// once the store has committed, it publishes the prompt to every instance (a queue of each, exclusive),
// waits for the broker's confirm, and only then acks the event; an instance that dies before the prompt
// left never acked, so the event comes again and its redelivery prompts once more. The prompt goes only
// when a stream of the recipient is open, as the system's does: open streams are counted in the
// recipient's counts row, which the store locks, so a stream opening meanwhile either is counted before
// the store takes the row (and is prompted) or reads after the store's commit (and finds what it stored).
import { newId } from '../../libs/contracts/dist/events/envelope.js';
import { declareConsumerQueue } from '../../libs/messaging/dist/topology.js';
import { problem, sendProblem, statement } from './common.mjs';
import { consumeEvents } from './write-path-broker.mjs';
import { iso, MENTION_CREATED } from './write-path-comments.mjs';

const NOTIFICATION_CREATED = 'notification.created';
/** What a stream reads at most at once (services/notifications `StreamSession`'s page). */
const CATCH_UP_LIMIT = 100;

// The inbox row first: on a redelivery it is not written, and nothing after it is.
const storeNotification = (countsStreams) =>
  statement(
    'store-notification',
    `WITH first_delivery AS (
       INSERT INTO processed_events (event_id, event_type) VALUES ($1, $2) ON CONFLICT (event_id) DO NOTHING RETURNING event_id
     ), counted AS (
       INSERT INTO notification_counts AS counts (recipient_id, total, unread, last_sequence, version)
       SELECT $3, 1, 1, 1, 1 FROM first_delivery
       ON CONFLICT (recipient_id) DO UPDATE
         SET total = counts.total + 1, unread = counts.unread + 1, last_sequence = counts.last_sequence + 1, version = counts.version + 1
       RETURNING unread, last_sequence${countsStreams ? ', streams' : ''}
     ), stored AS (
       INSERT INTO notifications (id, recipient_id, type, actor_id, content_type, content_id, comment_id, created_at, source_event_id, sequence)
       SELECT $4, $3, $5, $6, $7, $8, $9, $10, $1, last_sequence FROM counted
       RETURNING id
     )
     SELECT unread${countsStreams ? ', streams > 0 AS "streamOpen"' : ''} FROM counted`,
  );
const findUnread = statement('find-unread', 'SELECT unread FROM notification_counts WHERE recipient_id = $1');
// Under the counts row's lock, as the store takes it: see the module's comment.
const openStream = statement(
  'open-stream',
  `INSERT INTO notification_counts AS counts (recipient_id, total, unread, streams) VALUES ($1, 0, 0, 1)
   ON CONFLICT (recipient_id) DO UPDATE SET streams = counts.streams + 1
   RETURNING unread, last_sequence AS "lastSequence"`,
);
const closeStream = statement(
  'close-stream',
  'UPDATE notification_counts SET streams = streams - 1 WHERE recipient_id = $1',
);
// What the recipient's stream has not sent yet, with the actor from the users read model, and the unread count.
const findSince = statement(
  'find-since',
  `SELECT c.unread, n.id, n.sequence, n.type, n.actor_id AS "actorId", n.content_type AS "contentType",
          n.content_id AS "contentId", n.comment_id AS "commentId", n.is_read AS "isRead", ${iso('n.created_at')} AS "createdAt",
          u.username, u.avatar_url AS "avatarUrl"
     FROM notification_counts c
     LEFT JOIN LATERAL (
       SELECT * FROM notifications WHERE recipient_id = c.recipient_id AND sequence > $2 ORDER BY sequence LIMIT $3
     ) n ON true
     LEFT JOIN users u ON u.id = n.actor_id
    WHERE c.recipient_id = $1
    ORDER BY n.sequence`,
);

const sseEvent = (name, data, id) =>
  `${id === undefined ? '' : `id: ${id}\n`}event: ${name}\ndata: ${JSON.stringify(data)}\n\n`;

/** The notification an event makes, with its recipient; none for an event that tells nobody. */
function notificationOf(event) {
  const { data } = event;
  if (event.type === MENTION_CREATED)
    return {
      recipientId: data.mentionedUserId,
      type: `mention_${data.kind}`,
      actorId: data.actorId,
      contentType: data.targetType,
      contentId: data.targetId,
      commentId: data.commentId,
      createdAt: data.createdAt,
    };
  // comment.created: the recipe's owner, unless they wrote it or are told by their mention (conversations.ts).
  if (!data.targetOwnerId || data.targetOwnerId === data.authorId || data.mentionedUserIds.includes(data.targetOwnerId))
    return undefined;
  return {
    recipientId: data.targetOwnerId,
    type: 'comment_recipe',
    actorId: data.authorId,
    contentType: data.targetType,
    contentId: data.targetId,
    commentId: data.id,
    createdAt: data.createdAt,
  };
}

/** Stores `notification` for `event` once; the recipient's unread count (and whether a stream of theirs is open) or undefined on a redelivery. */
async function store(pool, statementOf, event, notification) {
  const { recipientId, type, actorId, contentType, contentId, commentId, createdAt } = notification;
  const { rows } = await pool.query(
    statementOf(
      event.id,
      event.type,
      recipientId,
      notification.id,
      type,
      actorId,
      contentType,
      contentId,
      commentId,
      createdAt,
    ),
  );
  return rows[0];
}

/** The plain floor: each stored mention straight to the recipient's streams in this process. */
async function plainFloor(app, { pool, connection, exchange, queue, types }) {
  const streams = new Map(); // recipient id → their open responses
  const storing = storeNotification(false);
  const channel = await connection.createChannel();
  await declareConsumerQueue(channel, exchange, queue, types);
  await consumeEvents(channel, queue, async (event) => {
    const notification = { id: newId(), ...notificationOf(event) };
    const stored = await store(pool, storing, event, notification);
    // A redelivery of an event stored before has nothing new to show.
    if (!stored) return undefined;
    const { recipientId, ...shown } = notification;
    const text =
      sseEvent('notification', { ...shown, isRead: false }, notification.id) +
      sseEvent('unread_count', { count: stored.unread });
    return () => {
      for (const out of streams.get(recipientId) ?? []) out.write(text);
    };
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

/**
 * One open stream of the architecture's floor: it remembers the last sequence it sent and, when prompted,
 * reads what came after it; one read at a time, with at most one more to follow (as `StreamSession`). Its
 * opening counts as its first read, so a prompt that comes meanwhile is not lost.
 */
function streamSession(pool, recipientId, out) {
  const session = { lastSequence: 0, reading: true, again: false };
  const catchUp = async () => {
    const { rows } = await pool.query(findSince(recipientId, session.lastSequence, CATCH_UP_LIMIT));
    let text = '';
    for (const { unread: _unread, sequence, username, avatarUrl, ...notification } of rows) {
      if (notification.id === null) continue;
      session.lastSequence = Number(sequence);
      const actor = username === null ? null : { id: notification.actorId, username, avatarUrl };
      text += sseEvent('notification', { ...notification, actor }, notification.id);
    }
    if (text !== '') out.write(text + sseEvent('unread_count', { count: rows[0].unread }));
    return rows.length === CATCH_UP_LIMIT;
  };
  session.refresh = async () => {
    if (session.reading) {
      session.again = true;
      return;
    }
    session.reading = true;
    try {
      for (let more = true; more;) {
        session.again = false;
        more = (await catchUp()) || session.again;
      }
    } catch {
      // The database away: the next prompt reads again.
    } finally {
      session.reading = false;
    }
  };
  session.opened = async (lastSequence) => {
    session.lastSequence = Number(lastSequence);
    session.reading = false;
    if (session.again) await session.refresh();
  };
  return session;
}

/** The architecture's floor: see the module's comment. */
async function architectureFloor(app, { pool, connection, exchange, queue, types }) {
  const sessions = new Map(); // recipient id → their open streams' sessions in this process
  const storing = storeNotification(true);

  const prompts = await connection.createConfirmChannel();
  const prompt = (recipientId) =>
    new Promise((resolve, reject) =>
      prompts.publish(exchange, NOTIFICATION_CREATED, Buffer.from(recipientId), {}, (error) =>
        error ? reject(error) : resolve(),
      ),
    );
  const channel = await connection.createChannel();
  await declareConsumerQueue(channel, exchange, queue, types);
  // This instance's own queue of prompts, deleted with its connection (as `Broker.subscribe`).
  const { queue: promptQueue } = await channel.assertQueue('', { exclusive: true, autoDelete: true, durable: false });
  await channel.bindQueue(promptQueue, exchange, NOTIFICATION_CREATED);
  await channel.consume(
    promptQueue,
    (message) => {
      for (const session of sessions.get(message.content.toString()) ?? []) session.refresh();
    },
    { noAck: true },
  );

  await consumeEvents(channel, queue, async (event, message) => {
    const told = notificationOf(event);
    if (!told) return;
    const notification = { id: newId(), ...told };
    const stored = await store(pool, storing, event, notification);
    // A redelivery of a stored event prompts again: whoever stored it may have died before its prompt left.
    if (stored ? stored.streamOpen : message.fields.redelivered) await prompt(notification.recipientId);
  });

  app.get('/api/notifications/stream', { schema: { response: { 401: problem } } }, async (request, reply) => {
    if (!request.caller) return sendProblem(reply, 401, 'A bearer token is required');
    const recipientId = request.caller.id;
    reply.hijack();
    const out = reply.raw;
    const session = streamSession(pool, recipientId, out);
    if (!sessions.has(recipientId)) sessions.set(recipientId, new Set());
    sessions.get(recipientId).add(session);
    let counted = false;
    out.on('close', () => {
      sessions.get(recipientId).delete(session);
      if (sessions.get(recipientId).size === 0) sessions.delete(recipientId);
      if (counted) pool.query(closeStream(recipientId)).catch(() => undefined);
    });
    const { rows } = await pool.query(openStream(recipientId));
    counted = true;
    if (out.destroyed) return pool.query(closeStream(recipientId));
    out.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    out.write(sseEvent('unread_count', { count: rows[0].unread }));
    await session.opened(rows[0].lastSequence);
  });
}

/** The notifications role of floor `floor` (`plain` or `architecture`) on `app`, consuming `types` on `queue`. */
export async function startNotifications(app, { floor, ...options }) {
  await { plain: plainFloor, architecture: architectureFloor }[floor](app, options);
}
