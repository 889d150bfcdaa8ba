// The campaign's Web Push lane (docs/api.md §11.3, docs/push.md): a local RFC 8030 push service
// (libs/testing/src/push-service.ts) that the workload's first users subscribe to through the gateway,
// told by the lane's faults to refuse every push (503, or 429 with Retry-After) or to hang on each for
// a while; and the check that every notification reached each live subscription once, as the push
// service decrypted it.
import { startLocalPushService } from '@recipes/testing/push-service';
import { vapidPair } from '../keys.mjs';
import { apiClient } from './client.mjs';
import { deletedUserIds } from './erasure-checks.mjs';

/** The sender gives up on a push after this long (services/notifications/src/push/deliver.ts). */
const PUSH_TIMEOUT_MS = 10_000;
/** A push held this long or longer may have been given up by its sender: it may come again. */
const MAY_HAVE_TIMED_OUT_MS = PUSH_TIMEOUT_MS - 1_000;
/**
 * Notifications stored this close to their subscription may have missed it (the trigger sees committed rows): at most
 * one push.
 */
const SUBSCRIBED_MARGIN_MS = 2_000;
/** How long the pushes still due (retries after the faults' refusals) may take to go once the system settled. */
const DRAIN_TIMEOUT_MS = 120_000;

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const row = (check, failures, figures) => ({ check, result: failures === 0 ? 'PASS' : 'FAIL', figures });
const sample = (items) => (items.length === 0 ? '' : `; e.g. ${items.slice(0, 3).join(', ')}`);

/**
 * Starts the local push service, and gives the settings that point the system at it: a VAPID pair, and
 * its `http` loopback endpoints allowed.
 */
export async function startPushService() {
  const service = await startLocalPushService();
  /** Each subscription made through the API: `{ id, endpoint, userId, createdAt }` (`id`: the push service's). */
  const subscriptions = [];
  return {
    service,
    subscriptions,
    env: { ...vapidPair(), PUSH_ALLOW_PRIVATE_ENDPOINTS: 'true' },
    /** Every subscription answers `answer` from now on (undefined: accepts again). */
    answerEvery(answer) {
      for (const { id } of subscriptions) service.answerAlways(id, answer);
    },
    /**
     * Subscribes each of `users` (`{ id, token }`) once, every other one twice (a second browser), through
     * the gateway; a few tries each, the servers may be shared.
     */
    async subscribe(apiUrl, users) {
      const { call } = apiClient(apiUrl);
      const { body } = await call('push:key', 'GET', '/push/public-key');
      if (!body?.publicKey) throw new Error('the system gave no VAPID key: is Web Push on?');
      const wanted = users.flatMap((user, n) => (n % 2 === 0 ? [user, user] : [user]));
      for (const user of wanted) {
        const subscription = service.subscribe(body.publicKey);
        for (let attempt = 1; attempt <= 10; attempt += 1) {
          const reply = await call('push:subscribe', 'POST', '/push/subscriptions', {
            body: { endpoint: subscription.endpoint, keys: subscription.keys },
            token: user.token,
          });
          if (reply.status === 201) {
            subscriptions.push({
              id: subscription.id,
              endpoint: subscription.endpoint,
              userId: user.id,
              createdAt: Date.parse(reply.body.subscription.createdAt),
            });
            break;
          }
          await sleep(1_000);
        }
      }
      if (subscriptions.length === 0) throw new Error('no push subscription could be made before the faults');
    },
    close: () => service.close(),
  };
}

/** The lane's faults undone: every push accepted again. */
export async function restorePush({ push }) {
  push?.answerEvery(undefined);
  return [];
}

/**
 * Faults (lanes.mjs `{ kind, target, from, to }`) that can keep a sender from recording a push the push
 * service took: its instance killed or stopped, or its database away. Its lease (30 s) then times out
 * and the push goes again.
 */
const keepsPushUnrecorded = ({ kind, target }) =>
  kind.startsWith('postgres-stop') ||
  kind === 'host-servers-cut' ||
  ((kind.startsWith('instance-') || kind === 'database-cut' || kind === 'database-latency') &&
    target.startsWith('notifications#'));

/** Resolves once no push is due or being retried any more, or after `timeoutMs`, with how many are left. */
async function drained(db, timeoutMs) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const left = await db.query('SELECT count(*)::int AS n FROM notifications.push_deliveries').then(
      (r) => r.rows[0].n,
      () => -1,
    );
    if (left === 0 || Date.now() > deadline) return left;
    await sleep(1_000);
  }
}

/**
 * docs/api.md §11.3, as the push service saw it: each notification not retracted of a subscription's
 * user, stored once it was subscribed, pushed to it exactly once; a retracted one at most once; nothing
 * pushed that is not the user's. A second copy is allowed only after a time-out: the sender's (the push
 * service held the first copy past it) or its lease's (a fault that `keepsPushUnrecorded` was in effect
 * from the first copy until the second came); those are counted.
 */
export async function pushedOnce({ db, push, timeline }) {
  const left = await drained(db, DRAIN_TIMEOUT_MS);
  const { rows } = await db.query('SELECT endpoint FROM notifications.push_subscriptions');
  const live = new Set(rows.map((s) => s.endpoint));
  const { rows: notifications } = await db.query(
    `SELECT id::text, recipient_id::text AS "recipientId", retracted_at IS NOT NULL AS retracted, (extract(epoch FROM created_at) * 1000)::float8 AS at
       FROM notifications.notifications WHERE recipient_id = ANY($1::uuid[])`,
    [[...new Set(push.subscriptions.map((s) => s.userId))]],
  );
  // A notification a deleted user caused goes with their erasure (docs/api.md §11.2), after its push perhaps.
  const deleted = await deletedUserIds(db);
  const excusing = timeline.filter(keepsPushUnrecorded);
  const leaseExcused = (first, again) =>
    excusing.some((f) => f.from <= again.arrivedAt && (f.to ?? Infinity) >= first.arrivedAt);
  const tally = {
    expected: 0,
    received: 0,
    missing: [],
    doubled: [],
    afterPushTimeout: 0,
    afterLeaseTimeout: 0,
    foreign: [],
    erasedSince: 0,
    retractedPushed: 0,
  };
  for (const subscription of push.subscriptions) {
    const received = push.service.received(subscription.id);
    tally.received += received.length;
    const stillLive = live.has(subscription.endpoint);
    const copies = new Map();
    for (const copy of received) {
      const id = copy.payload?.notification?.id;
      copies.set(id, [...(copies.get(id) ?? []), copy]);
    }
    const own = notifications.filter((n) => n.recipientId === subscription.userId);
    const ownIds = new Set(own.map((n) => n.id));
    for (const [id, [copy]] of copies) {
      if (ownIds.has(id)) continue;
      if (deleted.has(copy.payload?.notification?.actor?.id)) tally.erasedSince += 1;
      else tally.foreign.push(`${id} to ${subscription.id}`);
    }
    for (const n of own) {
      const got = copies.get(n.id) ?? [];
      if (n.retracted && got.length > 0) tally.retractedPushed += 1;
      const surely = !n.retracted && n.at > subscription.createdAt + SUBSCRIBED_MARGIN_MS;
      if (surely && stillLive) tally.expected += 1;
      if (surely && got.length === 0 && stillLive) tally.missing.push(`${n.id} to ${subscription.id}`);
      // In the order the sender sent them: a copy held past the time-out is taken after the retry that followed.
      const sent = [...got].sort((a, b) => a.arrivedAt - b.arrivedAt);
      for (let i = 1; i < sent.length; i += 1) {
        const earlier = sent.slice(0, i);
        if (earlier.some((copy) => copy.receivedAt - copy.arrivedAt >= MAY_HAVE_TIMED_OUT_MS))
          tally.afterPushTimeout += 1;
        else if (earlier.some((copy) => leaseExcused(copy, sent[i]))) tally.afterLeaseTimeout += 1;
        else
          tally.doubled.push(
            `${n.id} to ${subscription.id} (sent ${sent[i].arrivedAt - sent[i - 1].arrivedAt} ms after the one before)`,
          );
      }
    }
  }
  const removed = push.subscriptions.filter((s) => !live.has(s.endpoint)).length;
  const violations = push.service.violations;
  const attempts = push.subscriptions.reduce((sum, s) => sum + push.service.attempts(s.id), 0);
  return [
    row(
      'pushes: each notification once to each live subscription',
      tally.missing.length +
        tally.doubled.length +
        tally.foreign.length +
        (left === 0 ? 0 : 1) +
        (tally.expected === 0 ? 1 : 0),
      `${push.subscriptions.length} subscriptions, ${tally.expected} notifications due, ${tally.received} pushes received of ${attempts} tried` +
        ` (${left === 0 ? 'all sent' : `${left} still due`}): ${tally.missing.length} ` +
        `missing, ${tally.doubled.length} doubled, ${tally.foreign.length} not the user's;` +
        ` duplicates after a time-out: ${tally.afterPushTimeout} of the push's, ` +
        `${tally.afterLeaseTimeout} of a lease; ${tally.retractedPushed} retracted after their push, ` +
        `${tally.erasedSince} erased since with the user who caused them` +
        sample([...tally.missing, ...tally.doubled, ...tally.foreign]),
    ),
    row(
      'pushes: VAPID, TTL and aes128gcm as RFC 8030/8291/8292 say',
      violations.length,
      `${violations.length} refused${sample(violations)}`,
    ),
    row(
      'push subscriptions kept (the push service never said 404/410)',
      removed,
      `${push.subscriptions.length - removed} of ${push.subscriptions.length} left`,
    ),
  ];
}
