// One hostile user beside the campaign's clients, under the same faults (issue 38): an account of its
// own calling from a loopback address of its own, pushing at the limits it can reach. Wrong passwords
// for other users, each attempt naming a made-up client address in every header that can name one;
// bodies nested 30,000 levels deep with an Idempotency-Key; mentions of other users posted, edited away
// and deleted again and again. Its answers are kept apart from the workload's, for checks of their own:
// never a 500, never past a limit, and nothing left of its mentions once they are gone.
import { randomUUID } from 'node:crypto';
import { Agent } from 'undici';
import { apiClient, outcomeOf } from './client.mjs';
import { liveComment } from './invariants.mjs';

/**
 * The failed-login limits the campaign gives the users service, low enough for the hostile user to meet
 * them many times over in a short campaign (the workload never logs in), and their window.
 */
export const HOSTILE_LIMITS = {
  LOGIN_FAILURES_PER_USERNAME_AND_ADDRESS: '3',
  LOGIN_FAILURES_PER_ADDRESS: '5',
  RATE_LIMIT_WINDOW_MS: '60000',
};

/** Where its calls come from: an address of 127.0.0.0/8 that no other client uses (Linux routes them all to lo). */
const ADDRESS = '127.66.0.1';
const PASSWORD = 'correct horse battery';
const weights = { wrongLogin: 2, deepBody: 1, mentionChurn: 2 };

/** A body of ~60 KB nesting 30,000 levels, as the issue's report sent it to POST /api/collections. */
const DEEP_BODY = `{"name":"Deep","description":"x","nested":${'['.repeat(29_999)}${']'.repeat(29_999)}}`;

/** What each of its actions may be told: anything else (a 500, a 201 for a deep body) is a finding. */
const expected = {
  // Wrong, or refused as over a limit.
  wrongLogin: [401, 429],
  // Refused before anything walks it.
  deepBody: [400],
  // Done, the target deleted meanwhile, or over the comment limit or the notification budget.
  mentionChurn: [200, 201, 404, 429],
};

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const live = (items) => items.filter((item) => !item.deleted);
const spoofed = (rng) => {
  const address = `10.${rng.int(0, 255)}.${rng.int(0, 255)}.${rng.int(1, 254)}`;
  return { 'x-forwarded-for': address, forwarded: `for=${address}`, 'x-real-ip': address };
};

/**
 * Registers the hostile user and sets it to work until `stop()`, drawing on `world` (the workload's
 * users and recipes) for victims and targets. `system` is watched for how many lives the users service's
 * instances have had: each starts with its failed-login counts at zero.
 */
export async function startHostile({ apiUrl, system, world, rng, pauseMs = [100, 300] }) {
  const dispatcher = new Agent({ localAddress: ADDRESS });
  const { call, requests } = apiClient(apiUrl, { dispatcher });
  /** Every action's answers: `{ action, status, code }`, `code` the problem's for a 4xx. */
  const answers = [];
  const usersLives = new Set();
  const sampleUsers = () =>
    system.processes.filter((p) => p.service === 'users' && p.pid !== undefined).forEach((p) => usersLives.add(p.pid));
  const sampler = setInterval(sampleUsers, 250);
  let firstLogin;
  let lastLogin;

  const record = (action, reply) => {
    answers.push({ action, status: reply.status, code: reply.body?.code });
    return reply;
  };

  let self;
  for (let attempt = 1; !self && attempt <= 10; attempt += 1) {
    const reply = await call('hostile:register', 'POST', '/auth/register', {
      body: { username: `chaos_hostile_${randomUUID().slice(0, 8)}`, password: PASSWORD },
    });
    if (reply.status === 201)
      self = { id: reply.body.user.id, username: reply.body.user.username, token: reply.body.token };
    else await sleep(1_000);
  }
  if (!self) throw new Error('the hostile user could not register before the faults');

  let lastKey;
  const acts = {
    async wrongLogin() {
      const victim = rng.pick(world.users);
      sampleUsers();
      firstLogin ??= Date.now();
      record(
        'wrongLogin',
        await call('hostile:login', 'POST', '/auth/login', {
          body: { username: victim.username, password: 'not the password' },
          headers: spoofed(rng),
        }),
      );
      lastLogin = Date.now();
      sampleUsers();
    },
    async deepBody() {
      // Mostly a fresh key; now and then the last one again, as a client retrying would.
      const key = rng.chance(0.7) || !lastKey ? `hostile-${randomUUID()}` : lastKey;
      lastKey = key;
      record(
        'deepBody',
        await call('hostile:deep-body', 'POST', '/collections', {
          rawBody: DEEP_BODY,
          token: self.token,
          headers: { 'idempotency-key': key },
        }),
      );
    },
    async mentionChurn() {
      const recipes = live(world.recipes);
      if (recipes.length === 0) return;
      const path = `/recipes/${rng.pick(recipes).id}/comments`;
      const mention = () =>
        rng
          .shuffle(world.users)
          .slice(0, rng.int(1, 3))
          .map((u) => `@${u.username}`)
          .join(' ');
      const posted = record(
        'mentionChurn',
        await call('hostile:comment', 'POST', path, { body: { content: `${mention()} see this` }, token: self.token }),
      );
      if (posted.status !== 201) return;
      const comment = `${path}/${posted.body.comment.id}`;
      // The mentions edited away (or swapped for others), then now and then the comment deleted.
      const content = rng.chance(0.5) ? 'never mind' : `${mention()} rather`;
      record('mentionChurn', await call('hostile:edit', 'PATCH', comment, { body: { content }, token: self.token }));
      if (rng.chance(0.5))
        record('mentionChurn', await call('hostile:delete', 'DELETE', comment, { token: self.token }));
    },
  };

  let running = true;
  const loop = (async () => {
    while (running) {
      await acts[rng.weighted(weights)]();
      await sleep(rng.between(...pauseMs));
    }
  })();

  let stopped;
  return {
    self,
    requests,
    /** Resolves once its last call is answered; again, at once. */
    stop() {
      running = false;
      stopped ??= loop.then(() => {
        clearInterval(sampler);
        return dispatcher.close();
      });
      return stopped;
    },
    /** The checks of what it was told, and of what it left in the database `db`, as rows of the campaign's table. */
    async checks(db) {
      return [
        wrongAnswers(answers),
        failedLogins(answers, usersLives.size, firstLogin, lastLogin),
        deepBodies(answers),
        await leftMentions(db, self.id),
      ];
    },
  };
}

const row = (check, failures, figures) => ({ check, result: failures === 0 ? 'PASS' : 'FAIL', figures });
const tally = (items) =>
  [...items.reduce((m, key) => m.set(key, (m.get(key) ?? 0) + 1), new Map())]
    .map(([key, n]) => `${key || 'none'}×${n}`)
    .join(' ');

/** Each answer one its action may get, or the API unavailable (503, 504, none): never a 500. */
function wrongAnswers(answers) {
  const wrong = answers.filter(
    ({ action, status }) => !expected[action].includes(status) && outcomeOf(status) !== 'unavailable',
  );
  return row(
    'hostile user: no answer but those expected',
    wrong.length,
    `${answers.length} answers: ${tally(answers.map((a) => a.status))}${wrong
      .slice(0, 3)
      .map((a) => `; ${a.status} to ${a.action}`)
      .join('')}`,
  );
}

/**
 * Failed logins answered 401 at most as often as the failures per address allow: per life of a users
 * instance (each counts on its own, from zero) and per window (fixed, from the first failure), however
 * many client addresses the attempts made up. Believed, those would make every attempt a 401.
 */
function failedLogins(answers, lives, firstLogin, lastLogin) {
  const logins = answers.filter((a) => a.action === 'wrongLogin');
  const failed = logins.filter((a) => a.status === 401).length;
  const refused = logins.filter((a) => a.status === 429).length;
  const windows =
    firstLogin === undefined
      ? 0
      : Math.floor((lastLogin - firstLogin) / Number(HOSTILE_LIMITS.RATE_LIMIT_WINDOW_MS)) + 1;
  const allowed = Number(HOSTILE_LIMITS.LOGIN_FAILURES_PER_ADDRESS) * Math.max(lives, 1) * windows;
  // A run that never met the limit proves nothing: the lane must have been refused too.
  return row(
    'hostile user: failed logins within the limit (spoofed addresses)',
    failed > allowed || refused === 0 ? 1 : 0,
    `${logins.length} attempts: ${failed} × 401 (at most ${allowed}: ` +
      `${HOSTILE_LIMITS.LOGIN_FAILURES_PER_ADDRESS} × ${lives} users lives × ${windows} windows), ${refused} × 429`,
  );
}

/** Every deep body answered 400 VALIDATION_ERROR (or not at all): no collection, no 500. */
function deepBodies(answers) {
  const deep = answers.filter((a) => a.action === 'deepBody');
  const answered = deep.filter((a) => outcomeOf(a.status) !== 'unavailable');
  const wrong = answered.filter((a) => a.status !== 400 || a.code !== 'VALIDATION_ERROR');
  return row(
    'hostile user: deep bodies with an Idempotency-Key refused (400)',
    wrong.length + (answered.length === 0 ? 1 : 0),
    `${deep.length} sent, ${answered.length} answered: ${tally(answered.map((a) => `${a.status} ${a.code ?? ''}`.trim()))}`,
  );
}

/**
 * The hostile user's notifications of others: each one not retracted is of a mention still there, in a
 * live comment of theirs, or (a comment on the recipient's content) of a live comment of theirs. And no collection of
 * theirs, though every body they sent was one.
 */
async function leftMentions(db, hostileId) {
  const { rows } = await db.query(
    `WITH live_mentions AS (
       SELECT m.comment_id, m.mentioned_user_id
         FROM (SELECT comment_id, mentioned_user_id FROM comments.recipe_comment_mentions
               UNION ALL SELECT comment_id, mentioned_user_id FROM comments.collection_comment_mentions
               UNION ALL SELECT comment_id, mentioned_user_id FROM comments.post_comment_mentions) AS m
         JOIN comments.comments c ON c.id = m.comment_id
        WHERE c.author_id = $1 AND ${liveComment('c')}),
     shown AS (SELECT * FROM notifications.notifications WHERE actor_id = $1 AND retracted_at IS NULL)
     SELECT (SELECT count(*)::int FROM shown) AS shown,
            (SELECT count(*)::int FROM notifications.notifications WHERE actor_id = $1 AND retracted_at IS NOT NULL) AS retracted,
            (SELECT count(*)::int FROM live_mentions) AS mentions,
            (SELECT count(*)::int FROM shown n
              WHERE CASE WHEN n.type LIKE 'mention%'
                         THEN NOT EXISTS (SELECT 1 FROM live_mentions l WHERE l.comment_id = n.comment_id AND l.mentioned_user_id = n.recipient_id)
                         -- A comment on someone's content tells its owner (docs/api.md §11.4): of a live comment of theirs.
                         ELSE NOT EXISTS (SELECT 1 FROM comments.comments c
                                           WHERE c.id = n.comment_id AND c.author_id = $1 AND ${liveComment('c')}) END) AS orphans,
            (SELECT count(*)::int FROM comments.comments WHERE author_id = $1) AS comments,
            (SELECT count(*)::int FROM collections.collections WHERE owner_id = $1) AS collections`,
    [hostileId],
  );
  const r = rows[0];
  return row(
    'hostile user: notifications shown only of mentions and comments still there',
    r.orphans + r.collections,
    `${r.comments} comments, ${r.mentions} live mentions; ${r.shown} notifications shown, ` +
      `${r.retracted} retracted: ${r.orphans} of gone mentions or comments; ${r.collections} collections`,
  );
}
