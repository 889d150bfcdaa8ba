// A few users beside the campaign's clients who sign in on a second device, under the same faults
// (issue 47, docs/api.md §11.1): each logs in, refreshes now and then (each refresh token once), reads
// from every service with its access token, and ends the session: by logging out, or, once a refresh
// token it rotated away is past the 10 s grace, by replaying that one (which must end the session). A
// little more than 1 s after each end it tries the ended session's access token on every service again,
// and keeps what each said and when. Its answers are kept apart from the workload's (a probe wants 401),
// for checks of their own.
import { randomUUID } from 'node:crypto';
import { apiClient, outcomeOf } from './client.mjs';
import { endedSessionsRefused, SESSION_ENDS_WITHIN_MS } from './invariants.mjs';

const PASSWORD = 'correct horse battery';
/** A refresh token presented again this long after its first use is a replay, which ends its session. */
const GRACE_MS = 10_000;
/** Waited past the grace besides, so that the users service counts it past too. */
const GRACE_MARGIN_MS = 1_000;

/** What each call may be told besides 503/504/none: anything else (a 500, a 401 to a live session) is a finding. */
const expected = {
  login: [200],
  refresh: [200],
  read: [200],
  logout: [200],
  // After a logout or replay that got no answer, which may have ended the session already.
  'logout-again': [200, 401],
  replay: [401],
  // Accepted ones are judged by when they came (endedSessionsRefused).
  probe: [200, 401],
};

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, Math.max(0, ms)));

/** A read of each service that checks the token it is sent, as test/sessions.test.ts's. */
const readsOf = ({ recipeId, collectionId }) => ({
  users: '/users/me',
  content: `/recipes/${recipeId}`,
  comments: `/recipes/${recipeId}/comments`,
  collections: `/collections/${collectionId}`,
  notifications: '/notifications/unread-count',
});

/**
 * Registers `users` users of its own (each with a recipe and a collection to read: nobody else deletes
 * them) and sets each to work until `stop()`, one session after another.
 */
export async function startSessions({
  apiUrl,
  rng,
  users = 3,
  rounds = [1, 8],
  roundPauseMs = [500, 2_500],
  pauseMs = [200, 1_000],
}) {
  const { call, requests } = apiClient(apiUrl);
  /** Every answer: `{ action, status }`. */
  const answers = [];
  /** Every probe of an ended session's token: `{ service, status, endedAt, sentAt, answeredAt }` (epoch ms). */
  const probes = [];

  const ask = async (action, method, path, options) => {
    const sentAt = Date.now();
    const reply = await call(`sessions:${action}`, method, path, options);
    answers.push({ action, status: reply.status });
    return { ...reply, sentAt, at: Date.now() };
  };

  // Before the faults, but the servers may be shared with someone else's: a few tries each.
  async function setUp() {
    for (let attempt = 1; attempt <= 10; attempt += 1) {
      // A name of its own each time: a registration that got no answer may have stored the last one.
      const username = `chaos_sessions_${randomUUID().slice(0, 8)}`;
      const registered = await call('sessions:register', 'POST', '/auth/register', {
        body: { username, password: PASSWORD },
      });
      const token = registered.status === 201 ? registered.body?.token : undefined;
      const recipeId =
        token &&
        (
          await call('sessions:recipe', 'POST', '/recipes', {
            body: { title: 'Sessions', cameraModel: 'X100V', filmSimulation: 'Acros' },
            token,
          })
        ).body?.recipe?.id;
      const collectionId =
        recipeId &&
        (await call('sessions:collection', 'POST', '/collections', { body: { name: 'Sessions' }, token })).body
          ?.collection?.id;
      if (collectionId) return { username, recipeId, collectionId };
      await sleep(1_000);
    }
    throw new Error('a sessions user could not be set up before the faults');
  }
  const selves = await Promise.all(Array.from({ length: users }, () => setUp()));

  let running = true;

  /** One session on the second device, from its login to the probes of its token after its end. */
  async function session(self, own) {
    const reads = readsOf(self);
    const login = await ask('login', 'POST', '/auth/login', {
      body: { username: self.username, password: PASSWORD },
      headers: { 'user-agent': 'Chaos phone' },
    });
    // A 200 whose body was cut short: a session it cannot use.
    if (login.status !== 200 || !login.body) return;
    let { token, refreshToken } = login.body;
    /** The first refresh token rotated away, and when its successor came. */
    let rotated;
    /** Whether a call that may have ended the session got no answer. */
    let uncertain = false;
    const count = own.int(...rounds);
    for (let round = 0; round < count && running; round += 1) {
      // At most 7 refreshes and a replay a session: below REFRESH_LIMIT_PER_SESSION (10 a minute).
      if (round > 0 && own.chance(0.4)) {
        const reply = await ask('refresh', 'POST', '/auth/refresh', { body: { refreshToken } });
        // Unanswered, it may have rotated all the same: that token is not used again, nor any other.
        if (reply.status !== 200 || !reply.body) break;
        rotated ??= { refreshToken, at: reply.at };
        ({ token, refreshToken } = reply.body);
      }
      await Promise.all(Object.values(reads).map((path) => ask('read', 'GET', path, { token })));
      await sleep(own.between(...roundPauseMs));
    }

    // When the session is known to have ended: the answer that said so, which came after the end itself.
    let endedAt;
    if (rotated && Date.now() - rotated.at > GRACE_MS + GRACE_MARGIN_MS) {
      const reply = await ask('replay', 'POST', '/auth/refresh', { body: { refreshToken: rotated.refreshToken } });
      if (reply.status === 401) endedAt = reply.at;
      else uncertain = outcomeOf(reply.status) === 'unavailable';
    }
    // Logged out, again while that is unavailable, as an app would; unless the replay ended it.
    for (let attempt = 1; endedAt === undefined && attempt <= 5; attempt += 1) {
      const action = uncertain ? 'logout-again' : 'logout';
      const reply = await ask(action, 'POST', '/auth/logout', { token });
      if (expected[action].includes(reply.status)) endedAt = reply.at;
      else if (outcomeOf(reply.status) !== 'unavailable') return;
      else {
        uncertain = true;
        await sleep(1_000);
      }
    }
    if (endedAt === undefined) return;

    await sleep(endedAt + SESSION_ENDS_WITHIN_MS + own.between(100, 500) - Date.now());
    await Promise.all(
      Object.entries(reads).map(async ([service, path]) => {
        const reply = await ask('probe', 'GET', path, { token });
        probes.push({ service, status: reply.status, endedAt, sentAt: reply.sentAt, answeredAt: reply.at });
      }),
    );
  }

  const loops = selves.map(async (self, n) => {
    const own = rng.fork(`sessions ${n}`);
    while (running) {
      await session(self, own);
      await sleep(own.between(...pauseMs));
    }
  });

  let stopped;
  return {
    requests,
    /** Resolves once each user's session under way has ended and been probed; again, at once. */
    stop() {
      running = false;
      stopped ??= Promise.all(loops);
      return stopped;
    },
    /** The checks of its answers and probes, as rows of the campaign's table; `timeline`: the lanes' faults. */
    checks(timeline) {
      return [wrongAnswers(answers), replaysRefused(answers), endedSessionsRefused(probes, timeline)];
    },
  };
}

const row = (check, failures, figures) => ({ check, result: failures === 0 ? 'PASS' : 'FAIL', figures });
const tally = (items) =>
  [...items.reduce((m, key) => m.set(key, (m.get(key) ?? 0) + 1), new Map())]
    .map(([key, n]) => `${key || 'none'}×${n}`)
    .join(' ');

/** Each answer one its call may get, or the API unavailable (503, 504, none): a refresh never a 500. */
function wrongAnswers(answers) {
  const wrong = answers.filter(
    ({ action, status }) => !expected[action].includes(status) && outcomeOf(status) !== 'unavailable',
  );
  const refreshes = answers.filter((a) => a.action === 'refresh');
  return row(
    'sessions: no answer but those expected (refresh: 200, 503/504/none)',
    wrong.length,
    `${answers.length} answers: ${tally(answers.map((a) => a.status))}; refreshes: ${tally(refreshes.map((a) => a.status)) || 'none'}` +
      wrong
        .slice(0, 3)
        .map((a) => `; ${a.status} to ${a.action}`)
        .join(''),
  );
}

/** A refresh token presented again past the grace is a replay: refused, never a new token. */
function replaysRefused(answers) {
  const replays = answers.filter((a) => a.action === 'replay');
  const accepted = replays.filter((a) => outcomeOf(a.status) === 'ok');
  return row(
    'sessions: refresh tokens replayed after the 10 s grace refused',
    accepted.length,
    `${replays.length} replays: ${tally(replays.map((a) => a.status)) || 'none'}`,
  );
}
