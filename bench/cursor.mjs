// Cursor paging (docs/api.md §10.1) on a deep inbox: one recipient with `rows` notifications (10^6 by
// default, written by generate_series in one statement), page 1 and page 1,000 of 20 read through the
// gateway one request at a time, page 1,000 both by cursor (a keyset seek: the same few index entries
// as page 1) and by page number (an OFFSET: every entry before it is read and thrown away).
import { listCursor } from '@recipes/contracts';
import { sequential } from './measure.mjs';
import { register } from './seed.mjs';

const LIMIT = 20;
const DEEP_PAGE = 1_000;

/** Fills the inbox of a fresh user; gives their token and the cursor that starts page `DEEP_PAGE`. */
async function deepInbox(system, pools, rows) {
  const reader = await register(system.urlOf, `bench_inbox_${Date.now().toString(36)}`);
  const recipient = reader.user.id;
  const db = pools.notifications;
  await db.query(
    `INSERT INTO notifications (id, recipient_id, type, actor_id, content_type, content_id, comment_id, created_at, source_event_id)
     SELECT gen_random_uuid(), $1, 'tag_recipe', $1, 'recipe', gen_random_uuid(), NULL,
            timestamptz '2026-01-01' + i * interval '1 millisecond', gen_random_uuid()
       FROM generate_series(1, $2::int) AS i`,
    [recipient, rows],
  );
  await db.query(
    `INSERT INTO notification_counts (recipient_id, total, unread) VALUES ($1, $2, $2)
     ON CONFLICT (recipient_id) DO UPDATE SET total = $2, unread = $2, version = notification_counts.version + 1`,
    [recipient, rows],
  );
  await db.query('VACUUM ANALYZE notifications');
  // The last item of page DEEP_PAGE - 1: the position a client holds after following 999 next links.
  const {
    rows: [last],
  } = await db.query(
    `SELECT to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS at, id::text AS id
       FROM notifications WHERE recipient_id = $1 AND retracted_at IS NULL
      ORDER BY created_at DESC, id DESC OFFSET $2 LIMIT 1`,
    [recipient, (DEEP_PAGE - 1) * LIMIT - 1],
  );
  return { token: reader.token, cursor: listCursor('notifications').encode(last) };
}

/**
 * The figures: each read timed one at a time for `seconds`, and whether page 1,000 by cursor is within
 * 1.5× of page 1 (p50).
 */
export async function cursorPaging(system, pools, { rows, seconds }) {
  const { token, cursor } = await deepInbox(system, pools, rows);
  const headers = { authorization: `Bearer ${token}` };
  const url = (query) => `${system.urlOf('gateway')}/api/notifications?limit=${LIMIT}&${query}`;
  const reads = [
    ['page 1', url('page=1')],
    [`page ${DEEP_PAGE} by cursor`, url(`cursor=${cursor}`)],
    [`page ${DEEP_PAGE} by page number (OFFSET)`, url(`page=${DEEP_PAGE}`)],
  ];
  const figures = [];
  for (const [name, at] of reads) {
    const check = await fetch(at, { headers });
    if (!check.ok) throw new Error(`GET ${at}: ${check.status} ${await check.text()}`);
    figures.push({ name, ...(await sequential({ url: at, headers, seconds })) });
  }
  const [first, byCursor] = figures;
  return {
    rows,
    figures,
    within: byCursor.p50Ms <= 1.5 * first.p50Ms,
    ratio: +(byCursor.p50Ms / first.p50Ms).toFixed(2),
  };
}
