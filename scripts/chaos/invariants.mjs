// What must hold once the system has settled, whatever faults it went through: each check reads the
// owners' tables and the copies or counts derived from them, and says PASS or FAIL with its figures.
import amqp from 'amqplib';
import { outcomeOf } from './client.mjs';
import { outboxBacklog, SCHEMAS } from './settle.mjs';

const row = (check, failures, figures) => ({ check, result: failures === 0 ? 'PASS' : 'FAIL', figures });
const count = async (db, sql, params = []) => (await db.query(sql, params)).rows[0].n;
/** `n` rows, and the first few ids of the bad ones, for a failing row. */
const sample = (ids) => (ids.length === 0 ? '' : `; e.g. ${ids.slice(0, 3).join(', ')}`);

/**
 * Each 201 comment's mentions, the author it replies to and the owner of its target (one each, a mention
 * before a reply before a comment on their content, never its author: docs/api.md §11.4), and each 201
 * recipe's or post's tags, as notifications should show them: kind, source, recipient, actor, type.
 */
function confirmedSources(world) {
  const sources = [];
  for (const c of world.comments) {
    const told = new Set([c.authorId]);
    const reasons = [
      ...c.mentioned.map((user) => [user, `mention_${c.targetType}_comment`]),
      [c.repliedToAuthorId, 'reply_comment'],
      [c.ownerId, `comment_${c.targetType}`],
    ];
    for (const [user, type] of reasons) {
      if (!user || told.has(user)) continue;
      told.add(user);
      sources.push(['comment', c.id, user, c.authorId, type]);
    }
  }
  for (const recipe of world.recipes)
    for (const user of recipe.tagged) sources.push(['tag_recipe', recipe.id, user, recipe.authorId, 'tag_recipe']);
  for (const post of world.posts)
    for (const user of post.tagged) sources.push(['tag_post', post.id, user, post.authorId, 'tag_post']);
  return sources;
}

/**
 * SQL true when a notification of `type` from `actor` to `recipient` may rightly be missing
 * (docs/api.md §10): the recipient muted or blocked the actor at some time (the owner's rows: a pair's row stays once
 * made), or set that type on or off. Such a source may have no notification, never two.
 */
const silenceable = (
  recipient,
  actor,
  type,
) => `(EXISTS (SELECT 1 FROM users.user_relations ur WHERE ur.user_id = ${recipient} AND ur.target_id = ${actor})
  OR EXISTS (SELECT 1 FROM notifications.notification_preferences np WHERE np.recipient_id = ${recipient} AND np.type = ${type}))`;

/** Whether the comment `c` (a row of comments.comments) is live: not deleted, nor its target. */
export const liveComment = (c) => `${c}.deleted_at IS NULL
  AND NOT EXISTS (SELECT 1 FROM content.recipes r WHERE ${c}.target_type = 'recipe' AND r.id = ${c}.target_id AND r.deleted_at IS NOT NULL)
  AND NOT EXISTS (SELECT 1 FROM content.posts p WHERE ${c}.target_type = 'post' AND p.id = ${c}.target_id AND p.deleted_at IS NOT NULL)
  AND NOT EXISTS (SELECT 1 FROM collections.collections k WHERE ${c}.target_type = 'collection' AND k.id = ${c}.target_id AND k.deleted)`;

/**
 * One notification for each, or, about content deleted since (a comment on a deleted target is deleted
 * with it), at most one: it was retracted, or never stored once notifications knew of the deletion.
 */
async function confirmedNotified(db, world) {
  const sources = confirmedSources(world);
  const { rows } = await db.query(
    `WITH confirmed AS (
       SELECT e.*, CASE e.kind
                     WHEN 'comment' THEN EXISTS (SELECT 1 FROM comments.comments c WHERE c.id = e.source AND ${liveComment('c')})
                     WHEN 'tag_recipe' THEN EXISTS (SELECT 1 FROM content.recipes r WHERE r.id = e.source AND r.deleted_at IS NULL)
                     ELSE EXISTS (SELECT 1 FROM content.posts p WHERE p.id = e.source AND p.deleted_at IS NULL)
                   END AS live
         FROM unnest($1::text[], $2::uuid[], $3::uuid[], $4::uuid[], $5::text[]) AS e (kind, source, recipient, actor, type))
     SELECT e.kind, e.source::text, e.live, count(n.id)::int AS n
       FROM confirmed e
       LEFT JOIN notifications.notifications n
         ON n.recipient_id = e.recipient
        AND CASE WHEN e.kind = 'comment' THEN n.comment_id = e.source ELSE n.type = e.kind AND n.content_id = e.source END
      GROUP BY e.kind, e.source, e.recipient, e.actor, e.type, e.live
     HAVING count(n.id) > 1 OR (e.live AND count(n.id) = 0 AND NOT ${silenceable('e.recipient', 'e.actor', 'e.type')})`,
    [0, 1, 2, 3, 4].map((i) => sources.map((s) => s[i])),
  );
  const missing = rows.filter((r) => r.n === 0);
  const doubled = rows.filter((r) => r.n > 1);
  return row(
    '201 mentions, replies, comments and tags: one notification each',
    rows.length,
    `${sources.length} confirmed, ${missing.length} missing, ${doubled.length} doubled${sample(rows.map((r) => `${r.kind} ${r.source}`))}`,
  );
}

/**
 * Every stored mention and tag, every reply (to the author it answered) and every comment (to the owner of
 * its target), in the shape of the notification it may cause (actor included), and whether it is live: a
 * mention, reply or comment in a comment not deleted, on a target not deleted; a tag of content not deleted.
 */
const storedSources = `
  SELECT 'mention_' || m.kind AS type, m.mentioned_user_id AS recipient, c.author_id AS actor, c.target_id AS content_id, m.comment_id,
         ${liveComment('c')} AS live
    FROM (SELECT 'recipe_comment' AS kind, comment_id, mentioned_user_id FROM comments.recipe_comment_mentions
          UNION ALL SELECT 'collection_comment', comment_id, mentioned_user_id FROM comments.collection_comment_mentions
          UNION ALL SELECT 'post_comment', comment_id, mentioned_user_id FROM comments.post_comment_mentions) AS m
    JOIN comments.comments c ON c.id = m.comment_id
  UNION ALL
  SELECT 'reply_comment', p.author_id, c.author_id, c.target_id, c.id, ${liveComment('c')}
    FROM comments.comments c JOIN comments.comments p ON p.id = c.replied_to_id
   WHERE p.author_id <> c.author_id
  UNION ALL
  SELECT 'comment_' || c.target_type, o.owner_id, c.author_id, c.target_id, c.id, ${liveComment('c')}
    FROM comments.comments c
    JOIN (SELECT 'recipe' AS type, id, author_id AS owner_id FROM content.recipes
          UNION ALL SELECT 'post', id, author_id FROM content.posts
          UNION ALL SELECT 'collection', id, owner_id FROM collections.collections) AS o ON o.type = c.target_type AND o.id = c.target_id
   WHERE o.owner_id <> c.author_id
  UNION ALL
  SELECT 'tag_recipe', t.user_id, r.author_id, r.id, NULL::uuid, r.deleted_at IS NULL FROM content.recipe_tags t JOIN content.recipes r ON r.id = t.recipe_id
  UNION ALL
  SELECT 'tag_post', t.user_id, p.author_id, p.id, NULL::uuid, p.deleted_at IS NULL FROM content.post_tags t JOIN content.posts p ON p.id = t.post_id`;

const sameSource = `n.type = s.type AND n.recipient_id = s.recipient AND n.actor_id = s.actor
  AND n.content_id = s.content_id AND n.comment_id IS NOT DISTINCT FROM s.comment_id`;

/**
 * A comment's source whose recipient the comment told otherwise: one comment gives a user one notification
 * (docs/api.md §11.4), so a mention, a reply or a comment on their content may find the one of another.
 */
const toldOtherwise = `(matched.comment_id IS NOT NULL AND EXISTS (SELECT 1 FROM notifications.notifications n
  WHERE n.recipient_id = matched.recipient AND n.comment_id = matched.comment_id))`;

/**
 * Each live mention, reply, comment on a user's content and tag has one notification (which may be
 * retracted: a user mentioned again in a comment that mentioned them before is not notified again; or of
 * another type: one comment tells a user once), and each notification not retracted has a live source of
 * its type: a retraction (an edit, a deletion, deleted content) leaves nothing visible behind.
 */
async function storedNotified(db) {
  const { rows } = await db.query(
    `WITH sources AS (${storedSources}),
          matched AS (SELECT s.*, (SELECT count(*)::int FROM notifications.notifications n WHERE ${sameSource}) AS n FROM sources s WHERE s.live)
     SELECT (SELECT count(*)::int FROM matched) AS sources,
            (SELECT count(*)::int FROM matched WHERE n = 0 AND NOT ${silenceable('recipient', 'actor', 'type')} AND NOT ${toldOtherwise}) AS missing,
            (SELECT count(*)::int FROM matched WHERE n = 0 AND (${silenceable('recipient', 'actor', 'type')} OR ${toldOtherwise})) AS silenced,
            (SELECT count(*)::int FROM matched WHERE n > 1) AS doubled,
            (SELECT count(*)::int FROM notifications.notifications WHERE retracted_at IS NULL) AS notifications,
            (SELECT count(*)::int FROM notifications.notifications WHERE retracted_at IS NOT NULL) AS retracted,
            (SELECT count(*)::int FROM notifications.notifications n
              WHERE n.retracted_at IS NULL AND NOT EXISTS (SELECT 1 FROM sources s WHERE s.live AND ${sameSource})) AS orphans`,
  );
  const r = rows[0];
  return row(
    'stored mentions, replies, comments and tags ↔ notifications',
    r.missing + r.doubled + r.orphans,
    `${r.sources} live, ${r.notifications} notifications (${r.retracted} more retracted, ${r.silenced} ` +
      `silenced): ${r.missing} missing, ${r.doubled} doubled, ${r.orphans} without a live source`,
  );
}

/**
 * docs/api.md §10.3, by the owner's rows of who blocks whom: no notification is shown from a user the
 * recipient blocks now, nor one made before the recipient's latest block of its actor ended. This holds
 * whatever order the events came in: a block retracts what it covers, and covers what comes later.
 */
async function blocksCover(db) {
  const { rows } = await db.query(
    `SELECT n.id::text FROM notifications.notifications n
       JOIN users.user_relations r ON r.user_id = n.recipient_id AND r.target_id = n.actor_id
      WHERE n.retracted_at IS NULL AND (r.blocked_at IS NOT NULL OR n.created_at <= r.last_unblocked_at)`,
  );
  const pairs = await count(
    db,
    'SELECT count(*)::int AS n FROM users.user_relations WHERE blocked_at IS NOT NULL OR last_unblocked_at IS NOT NULL',
  );
  return row(
    'blocks: nothing they cover shown',
    rows.length,
    `${pairs} pairs ever blocked; ${rows.length} notifications shown that a block covers${sample(rows.map((r) => r.id))}`,
  );
}

/**
 * How long a mute, block or preference may take, once taken in, to be seen by a notification's statement (a fault may
 * hold its commit).
 */
const SETTLE_MS = 5_000;

/**
 * docs/api.md §10.3 and §10.4, checkably: a mention or tag handled (its event's row in the notifications
 * service's inbox) once the recipient's mute or block of its actor, or a type turned off, had been taken in
 * by that service (its read model's times) and had settled, shows no notification. Each pair's and type's
 * state held from when it was taken in to the end, so this reads their final state only.
 */
async function silencesHeld(db) {
  const { rows } = await db.query(
    `SELECT n.id::text, p.processed_at FROM notifications.notifications n
       JOIN notifications.processed_events p ON p.event_id = n.source_event_id
      WHERE n.retracted_at IS NULL
        AND (EXISTS (SELECT 1 FROM notifications.user_relations r
                      WHERE r.user_id = n.recipient_id AND r.target_id = n.actor_id AND (r.muted OR r.blocked)
                        AND r.applied_at + $1 * interval '1 millisecond' < p.processed_at)
          OR EXISTS (SELECT 1 FROM notifications.notification_preferences np
                      WHERE np.recipient_id = n.recipient_id AND np.type = n.type AND NOT np.enabled
                        AND np.updated_at + $1 * interval '1 millisecond' < p.processed_at))`,
    [SETTLE_MS],
  );
  const silenced = await count(
    db,
    `SELECT (SELECT count(*) FROM notifications.user_relations WHERE muted OR blocked)
          + (SELECT count(*) FROM notifications.notification_preferences WHERE NOT enabled) AS n`,
  );
  return row(
    'mutes, blocks, types off: nothing notified once settled',
    rows.length,
    `${silenced} mutes, blocks and types off held; ${rows.length} notifications handled after one settled${sample(rows.map((r) => r.id))}`,
  );
}

/** The pairs of relations: the users directories of who mutes or blocks whom equal the owner's rows. */
const relationsDirectory = (db) =>
  readModel(
    db,
    'relation directories = users.user_relations',
    `SELECT user_id::text || ':' || target_id::text AS id, muted_at IS NOT NULL AS ` +
      `muted, blocked_at IS NOT NULL AS blocked, revision FROM users.user_relations`,
    [
      [
        'notifications',
        `SELECT user_id::text || ':' || target_id::text AS id, muted, blocked, revision FROM notifications.user_relations`,
      ],
    ],
    ['muted', 'blocked', 'revision'],
  );

/** Blocks as comments and content hold them equal the owner's (they hear only of blocks, so compare `blocked`). */
const blockDirectories = (db) =>
  readModel(
    db,
    'block directories = users.user_relations',
    `SELECT user_id::text || ':' || target_id::text AS id, true AS blocked FROM users.user_relations WHERE blocked_at IS NOT NULL`,
    ['comments', 'content'].map((schema) => [
      schema,
      `SELECT user_id::text || ':' || target_id::text AS id, blocked FROM ${schema}.user_relations WHERE blocked`,
    ]),
    ['blocked'],
  );

/**
 * The notifications seen retracted while the campaign ran (every few seconds, whatever the faults), for
 * `retractedStayRetracted`; `stop()` gives them.
 */
export function sampleRetractions(db, everyMs = 3_000) {
  const seen = new Set();
  const sample = async () => {
    const { rows } = await db
      .query('SELECT id::text FROM notifications.notifications WHERE retracted_at IS NOT NULL')
      .catch(() => ({ rows: [] }));
    for (const { id } of rows) seen.add(id);
  };
  const timer = setInterval(() => void sample(), everyMs);
  return {
    async stop() {
      clearInterval(timer);
      await sample();
      return seen;
    },
  };
}

/**
 * Nothing retracted comes back: each notification seen retracted during the run is retracted still, and
 * no source shows a notification beside a retracted one of the same source.
 */
async function retractedStayRetracted(db, retractedSeen) {
  const ids = [...retractedSeen];
  const back = await count(
    db,
    'SELECT count(*)::int AS n FROM notifications.notifications WHERE id = ANY($1::uuid[]) AND retracted_at IS NULL',
    [ids],
  );
  const again = await count(
    db,
    `SELECT count(*)::int AS n FROM notifications.notifications gone
      WHERE gone.retracted_at IS NOT NULL
        AND EXISTS (SELECT 1 FROM notifications.notifications n
                     WHERE n.retracted_at IS NULL AND n.id <> gone.id AND n.recipient_id = gone.recipient_id AND n.type = gone.type
                       AND n.content_id = gone.content_id AND n.comment_id IS NOT DISTINCT FROM gone.comment_id)`,
  );
  return row(
    'nothing retracted comes back',
    back + again,
    `${ids.length} seen retracted during the run: ${back} shown again, ${again} shown again under another id`,
  );
}

/** Each comment refused 403 was on a target whose owner blocked its author at some time. */
async function refusalsJustified(db, world) {
  const refused = world.refusedComments;
  const { rows } = await db.query(
    `SELECT e.author::text FROM unnest($1::uuid[], $2::text[], $3::uuid[]) AS e (author, target_type, target_id)
      WHERE NOT EXISTS (
        SELECT 1 FROM users.user_relations r
         WHERE r.target_id = e.author AND (r.blocked_at IS NOT NULL OR r.last_unblocked_at IS NOT NULL)
           AND r.user_id = (SELECT owner FROM (SELECT author_id AS owner FROM content.recipes WHERE e.target_type = 'recipe' AND id = e.target_id
                                               UNION ALL SELECT author_id FROM content.posts WHERE e.target_type = 'post' AND id = e.target_id
                                               UNION ALL SELECT owner_id FROM collections.collections
                                                          WHERE e.target_type = 'collection' AND id = e.target_id) o))`,
    [refused.map((r) => r.authorId), refused.map((r) => r.targetType), refused.map((r) => r.targetId)],
  );
  return row(
    'comments refused 403: each by a block',
    rows.length,
    `${refused.length} refused, ${rows.length} without a block of the author by the owner`,
  );
}

async function recipeCounts(db) {
  // Where comments can be deleted (soft: `deleted_at`), a deleted one no longer counts.
  const softDeleted = await count(
    db,
    `SELECT count(*)::int AS n FROM information_schema.columns
      WHERE table_schema = 'comments' AND table_name = 'comments' AND column_name = 'deleted_at'`,
  );
  const live = softDeleted > 0 ? 'AND c.deleted_at IS NULL' : '';
  const { rows } = await db.query(
    `SELECT r.id::text FROM content.recipes r
      WHERE r.comment_count <> (SELECT count(*) FROM comments.comments c WHERE c.target_type = 'recipe' AND c.target_id = r.id ${live})
         OR r.favorite_count <> (SELECT count(*) FROM content.recipe_favorites f WHERE f.recipe_id = r.id)
         OR r.repost_count <> (SELECT count(*) FROM content.recipe_reposts p WHERE p.recipe_id = r.id)`,
  );
  const recipes = await count(db, 'SELECT count(*)::int AS n FROM content.recipes');
  return row(
    'recipe commentCount, favoriteCount, repostCount',
    rows.length,
    `${rows.length} of ${recipes} recipes wrong${sample(rows.map((r) => r.id))}`,
  );
}

/**
 * Rows of a read model that differ from the owner's (`owner` and `copy` are queries with the same columns, `id` first).
 */
async function differences(db, owner, copy, columns) {
  const differs = columns.map((c) => `o.${c} IS DISTINCT FROM d.${c}`).join(' OR ');
  const { rows } = await db.query(
    `SELECT coalesce(o.id, d.id)::text AS id FROM (${owner}) o FULL JOIN (${copy}) d ON d.id = o.id
      WHERE o.id IS NULL OR d.id IS NULL OR ${differs}`,
  );
  return rows.map((r) => r.id);
}

async function readModel(db, check, owner, copies, columns) {
  const total = await count(db, `SELECT count(*)::int AS n FROM (${owner}) o`);
  const results = [];
  for (const [schema, copy] of copies) results.push([schema, await differences(db, owner, copy, columns)]);
  const wrong = results.flatMap(([, ids]) => ids);
  return row(
    check,
    wrong.length,
    `${total} rows; differing: ${results.map(([schema, ids]) => `${schema} ${ids.length}`).join(', ')}${sample(wrong)}`,
  );
}

const userColumns = ['username', 'avatar_url', 'revision'];
const usersDirectory = (db) =>
  readModel(
    db,
    'users directories = users.users',
    // A deleted user's tombstone stays with its owner alone: the others erase them (docs/api.md §11.2).
    'SELECT id, username, avatar_url, revision FROM users.users WHERE deleted_at IS NULL',
    ['content', 'comments', 'collections', 'notifications'].map((schema) => [
      schema,
      `SELECT id, username, avatar_url, revision FROM ${schema}.users`,
    ]),
    userColumns,
  );

// Timestamps to the millisecond: the events carry them so.
const ms = (column) => `date_trunc('milliseconds', ${column}) AS created_at`;
const NOBODY = '00000000-0000-0000-0000-000000000000';
/**
 * A deleted item of a deleted user, which its owner erased for good while a directory keeps it deleted and
 * with no owner (docs/api.md §11.2): nothing to compare.
 */
const erasedAtOwner = (owner, ownerTables) =>
  `(deleted AND ${owner} = '${NOBODY}' AND ${ownerTables.map((t) => `NOT EXISTS (SELECT 1 FROM ${t} o WHERE o.id = d.id)`).join(' AND ')})`;
// A directory keeps no owner of a deleted item (libs/directory, docs/api.md §11.2).
const ownerWhileLive = (owner, deleted) => `CASE WHEN ${deleted} THEN '${NOBODY}'::uuid ELSE ${owner} END`;
// A deleted item keeps no title, name or cover in the directories either (libs/directory).
const whileLive = (column, deleted, gone = "''") => `CASE WHEN ${deleted} THEN ${gone} ELSE ${column} END`;
const recipeCover = `coalesce(r.cover_image_url, (SELECT i.url FROM content.recipe_images i WHERE i.recipe_id = r.id ORDER BY i.position LIMIT 1))`;
const contentOwner = `
  SELECT r.id, 'recipe' AS content_type, ${ownerWhileLive('r.author_id', 'r.deleted_at IS NOT NULL')} AS author_id,
         ${whileLive('r.title', 'r.deleted_at IS NOT NULL')} AS title,
         ${whileLive(recipeCover, 'r.deleted_at IS NOT NULL', 'NULL')} AS cover_image_url,
         r.deleted_at IS NOT NULL AS deleted, r.revision, ${ms('r.created_at')}
    FROM content.recipes r
  UNION ALL
  SELECT p.id, 'post', ${ownerWhileLive('p.author_id', 'p.deleted_at IS NOT NULL')}, ${whileLive('p.title', 'p.deleted_at IS NOT NULL')},
         ${whileLive('p.cover_image_url', 'p.deleted_at IS NOT NULL', 'NULL')},
         p.deleted_at IS NOT NULL, p.revision, ${ms('p.created_at')} FROM content.posts p`;
const contentColumns = ['content_type', 'author_id', 'title', 'cover_image_url', 'deleted', 'revision', 'created_at'];
const contentDirectory = (db) =>
  readModel(
    db,
    'content directories = content recipes, posts',
    contentOwner,
    ['comments', 'collections'].map((schema) => [
      schema,
      `SELECT ${contentColumns.slice(0, -1).join(', ')}, id, ${ms('created_at')} FROM ${schema}.content_items d
        WHERE NOT ${erasedAtOwner('author_id', ['content.recipes', 'content.posts'])}`,
    ]),
    contentColumns,
  );

const collectionColumns = ['owner_id', 'name', 'deleted', 'revision', 'created_at'];
const collectionDirectory = (db) =>
  readModel(
    db,
    'collections directory = collections.collections',
    `SELECT id, ${ownerWhileLive('owner_id', 'deleted')} AS owner_id, ${whileLive('name', 'deleted')} AS name, deleted, revision,
            ${ms('created_at')} FROM collections.collections`,
    [
      [
        'comments',
        `SELECT id, owner_id, name, deleted, revision, ${ms('created_at')} FROM comments.known_collections d
          WHERE NOT ${erasedAtOwner('owner_id', ['collections.collections'])}`,
      ],
    ],
    collectionColumns,
  );

async function collectionCounts(db) {
  const { rows } = await db.query(
    `SELECT c.id::text FROM collections.collections c
      WHERE c.item_count <> (SELECT count(*) FROM collections.collection_items i WHERE i.collection_id = c.id)`,
  );
  const total = await count(db, 'SELECT count(*)::int AS n FROM collections.collections');
  return row(
    'collection itemCount = its items',
    rows.length,
    `${rows.length} of ${total} collections wrong${sample(rows.map((r) => r.id))}`,
  );
}

/** The saved items' own counts: how many collections hold each, and the per-user totals of the listings. */
async function savedItemCounts(db) {
  const items = await count(
    db,
    `SELECT count(*)::int AS n FROM collections.saved_items s
      WHERE s.collection_count <> (SELECT count(*) FROM collections.collection_items i WHERE i.saved_item_id = s.id)`,
  );
  const totals = await count(
    db,
    `WITH truth AS (SELECT user_id, content_type, collection_count = 0 AS standalone, count(*)::int AS count
                      FROM collections.saved_items GROUP BY 1, 2, 3)
     SELECT count(*)::int AS n FROM truth t FULL JOIN collections.saved_item_totals s USING (user_id, content_type, standalone)
      WHERE coalesce(t.count, 0) <> coalesce(s.count, 0)`,
  );
  return row('saved items: collection counts and totals', items + totals, `${items} items and ${totals} totals wrong`);
}

/** Deleted content leaves everyone's saved items (and so their collections). */
async function savedContentLive(db) {
  const n = await count(
    db,
    `SELECT count(*)::int AS n FROM collections.saved_items s
      WHERE NOT EXISTS (SELECT 1 FROM content.recipes r WHERE s.content_type = 'recipe' AND r.id = s.content_id AND r.deleted_at IS NULL)
        AND NOT EXISTS (SELECT 1 FROM content.posts p WHERE s.content_type = 'post' AND p.id = s.content_id AND p.deleted_at IS NULL)`,
  );
  const total = await count(db, 'SELECT count(*)::int AS n FROM collections.saved_items');
  return row('saved items are of live content', n, `${n} of ${total} saved items are of deleted or unknown content`);
}

/** A recipient's counts are of their notifications not retracted (a retracted one stays, marked). */
async function notificationCounts(db) {
  const n = await count(
    db,
    `WITH truth AS (SELECT recipient_id, count(*)::int AS total, count(*) FILTER (WHERE NOT is_read)::int AS unread
                      FROM notifications.notifications WHERE retracted_at IS NULL GROUP BY 1)
     SELECT count(*)::int AS n FROM truth t FULL JOIN notifications.notification_counts c USING (recipient_id)
      WHERE coalesce(t.total, 0) <> coalesce(c.total, 0) OR coalesce(t.unread, 0) <> coalesce(c.unread, 0)`,
  );
  return row('notification counts = notifications', n, `${n} recipients with wrong total or unread`);
}

/** Each consumer's dead-letter queue, on a channel of its own: asking about a missing queue closes the channel. */
async function deadLetters(amqpUrl, exchange) {
  const connection = await amqp.connect(amqpUrl);
  try {
    const depths = [];
    for (const service of SCHEMAS) {
      const channel = await connection.createChannel();
      channel.on('error', () => undefined);
      const depth = await channel.checkQueue(`${exchange}.${service}.dlq`).then(
        (q) => q.messageCount,
        () => undefined,
      );
      await channel.close().catch(() => undefined);
      if (depth !== undefined) depths.push([service, depth]);
    }
    const total = depths.reduce((sum, [, n]) => sum + n, 0);
    return row('dead-letter queues empty', total, depths.map(([service, n]) => `${service} ${n}`).join(', '));
  } finally {
    await connection.close();
  }
}

async function outboxes(db) {
  const backlog = await outboxBacklog(db);
  const total = Object.values(backlog).reduce((sum, n) => sum + n, 0);
  return row(
    'outboxes empty',
    total,
    Object.entries(backlog)
      .map(([schema, n]) => `${schema} ${n}`)
      .join(', '),
  );
}

/** docs/api.md §11.1: an ended session's access tokens are refused (401) by every service within this of its end. */
export const SESSION_ENDS_WITHIN_MS = 1_000;

/**
 * The faults that could keep a service from learning a session's end in time. The end goes from the users
 * service's outbox (PostgreSQL; its relay publishes it) through the broker to every instance's own queue,
 * and a service whose link was away learns it within 1 s of the link's return: the broker stopped or its
 * links dropped, cut or slowed; PostgreSQL stopped, or a users instance's link to it cut or slowed; a
 * host's instances cut from the servers, or the hosts from each other; an instance down until it is
 * ready again (it reads what it missed from its service's tables at its start, then every second).
 */
const keepsEndAway = ({ kind, target }) =>
  /^(rabbitmq|broker|postgres|host|instance)-/.test(kind) ||
  (kind.startsWith('database-') && target.startsWith('users#'));

/**
 * No ended session's access token accepted more than 1 s after its end, but where a fault could have kept
 * the answering side from learning it. `probes` (scripts/chaos/sessions.mjs): `{ service, status, endedAt,
 * sentAt, answeredAt }`, epoch ms, `endedAt` the answer that ended the session (so no earlier than the
 * end). A probe accepted (2xx) and sent more than 1 s after `endedAt` is late, and excused if a fault of
 * `timeline` (lanes.mjs: `{ kind, target, from, to }`) that `keepsEndAway` was in effect at any time from
 * `endedAt` until 1 s before the answer: the guarantee counts from the fault's end.
 */
export function endedSessionsRefused(probes, timeline) {
  const answered = probes.filter((p) => outcomeOf(p.status) !== 'unavailable');
  const late = probes.filter((p) => outcomeOf(p.status) === 'ok' && p.sentAt - p.endedAt > SESSION_ENDS_WITHIN_MS);
  const excusing = timeline.filter(keepsEndAway);
  const excused = (p) =>
    excusing.some((f) => f.from <= p.answeredAt - SESSION_ENDS_WITHIN_MS && (f.to ?? Infinity) >= p.endedAt);
  const unexcused = late.filter((p) => !excused(p));
  // A run whose probes were never answered proves nothing.
  return row(
    "ended sessions' tokens refused within 1 s",
    unexcused.length + (answered.length === 0 ? 1 : 0),
    `${probes.length} probes (${answered.length} answered), ${late.length} accepted late, ${late.length - unexcused.length} excused by faults` +
      sample(unexcused.map((p) => `${p.service} ${p.status} sent ${p.sentAt - p.endedAt} ms after the end`)),
  );
}

/** The rows about the run itself: its faults, its processes, the answers its clients got, settling. */
export function runChecks({ settled, requests, exits, faults, quota, errors }) {
  const unexpected = requests.filter((r) => outcomeOf(r.status, r.action) === 'unexpected');
  // The kinds of the lanes that ran (all of them unless the campaign was told otherwise).
  const short = Object.keys(faults).filter((kind) => faults[kind] < quota[kind]);
  const injected = Object.values(faults).reduce((sum, n) => sum + n, 0);
  const seconds = (ms) => (ms / 1_000).toFixed(1);
  return [
    row(
      'faults injected and undone',
      errors.length + short.length,
      `${injected} faults, ` +
        `${
          short.length === 0
            ? 'every kind at its minimum'
            : `fewer than the minimum of ${short.map((kind) => `${kind} (${faults[kind]} < ${quota[kind]})`).join(', ')}`
        }${errors.length ? `; ${errors.length} errors: ${errors[0]}` : ''}`,
    ),
    row('no process exited unasked', exits.length, exits.join(', ') || 'none'),
    row(
      'answers: 2xx, 404/409, or 503/504/none',
      unexpected.length,
      `${requests.length} requests, ${unexpected.length} unexpected${unexpected
        .slice(0, 3)
        .map((r) => `; ${r.status} ${r.method} ${r.path}`)
        .join('')}`,
    ),
    row(
      'settled (outboxes drained, queues empty)',
      settled.settled ? 0 : 1,
      settled.settled
        ? `in ${seconds(settled.ms)} s`
        : `still pending after ${seconds(settled.ms)} s: ${settled.pending.join('; ')}`,
    ),
  ];
}

/** Every invariant, as rows of a table; a check that cannot run at all is a FAIL row of its own. */
export async function checkInvariants({ db, amqpUrl, exchange, world, retractedSeen = new Set() }) {
  const checks = [
    ['201 mentions, replies, comments and tags: one notification each', () => confirmedNotified(db, world)],
    ['stored mentions, replies, comments and tags ↔ notifications', () => storedNotified(db)],
    ['blocks: nothing they cover shown', () => blocksCover(db)],
    ['mutes, blocks, types off: nothing notified once settled', () => silencesHeld(db)],
    ['nothing retracted comes back', () => retractedStayRetracted(db, retractedSeen)],
    ['comments refused 403: each by a block', () => refusalsJustified(db, world)],
    ['relation directories = users.user_relations', () => relationsDirectory(db)],
    ['block directories = users.user_relations', () => blockDirectories(db)],
    ['recipe commentCount, favoriteCount, repostCount', () => recipeCounts(db)],
    ['users directories = users.users', () => usersDirectory(db)],
    ['content directories = content recipes, posts', () => contentDirectory(db)],
    ['collections directory = collections.collections', () => collectionDirectory(db)],
    ['collection itemCount = its items', () => collectionCounts(db)],
    ['saved items: collection counts and totals', () => savedItemCounts(db)],
    ['saved items are of live content', () => savedContentLive(db)],
    ['notification counts = notifications', () => notificationCounts(db)],
    ['dead-letter queues empty', () => deadLetters(amqpUrl, exchange)],
    ['outboxes empty', () => outboxes(db)],
  ];
  const rows = [];
  for (const [name, check] of checks)
    rows.push(
      await check().catch((error) => ({ check: name, result: 'FAIL', figures: `could not check: ${error.message}` })),
    );
  return rows;
}
