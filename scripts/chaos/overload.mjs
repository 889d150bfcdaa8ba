// Bursts above capacity beside the campaign's clients, under the same faults: now and then a second of
// open-loop requests, a few hundred of them sent at a fixed pace whatever the answers, far more than the
// system serves in that second. Most are comments by the workload's users mentioning others, the rest
// reads. Past its limits the gateway refuses the excess at once (503 with Retry-After: admission
// control, docs/architecture.md §10); what it admits must hold like any other write. The comments
// answered 201 join the workload's world, so the campaign's checks cover their notifications; the ones
// refused at capacity must have left nothing.
import { randomUUID } from 'node:crypto';
import { outcomeOf } from './client.mjs';

const TIMEOUT_MS = 15_000;
const live = (items) => items.filter((item) => !item.deleted);
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Sends one request; resolves with what the campaign's clients record (`{ action, method, path, status,
 * ms, at }`, status 0 for no answer) and `atCapacity`: the gateway's refusal, a 503 at capacity with Retry-After.
 */
async function send(apiUrl, action, method, path, { body, token }) {
  const started = performance.now();
  let status = 0;
  let retryAfter = null;
  let parsed;
  try {
    const response = await fetch(`${apiUrl}${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(body ? { 'content-type': 'application/json' } : {}) },
      body: body ? JSON.stringify(body) : undefined,
      signal: AbortSignal.timeout(TIMEOUT_MS),
    });
    status = response.status;
    retryAfter = response.headers.get('retry-after');
    const text = await response.text();
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    // No answer, or a body cut short.
  }
  return {
    action,
    method,
    path,
    status,
    ms: Math.round(performance.now() - started),
    at: Date.now(),
    // Every 503 carries Retry-After; the gateway's refusal (its admission or its loop guard) also says so. A 503 for a
    // request its service may have taken (cut off as it was sent) is no refusal.
    atCapacity: status === 503 && retryAfter !== null && /is at capacity/.test(parsed?.detail ?? ''),
    body: parsed,
  };
}

/**
 * Starts the bursts (each `size` requests, drawn in that range, spread evenly over `burstMs`, then a pause
 * drawn from `pauseMs`) until `stop()`. `world`: the workload's users and recipes, and where the comments
 * answered 201 go.
 */
export function startOverload({ apiUrl, world, rng, size = [200, 400], burstMs = 1_000, pauseMs = [3_000, 7_000] }) {
  /** Every request of every burst, as the clients record theirs, with `burst` and `atCapacity`. */
  const requests = [];
  /** The tags of the comments the gateway refused at capacity: none may be stored. */
  const refusedTags = [];
  let bursts = 0;

  async function burst(n) {
    const recipes = live(world.recipes);
    if (recipes.length === 0 || world.users.length < 2) return;
    const count = rng.int(...size);
    const sent = [];
    const start = performance.now();
    for (let i = 0; i < count; i += 1) {
      const wait = start + (i * burstMs) / count - performance.now();
      if (wait > 0) await sleep(wait);
      const [author, ...mentioned] = rng.shuffle(world.users).slice(0, rng.int(2, 3));
      const recipe = rng.pick(recipes);
      if (rng.chance(0.7)) {
        const tag = `overload-${randomUUID()}`;
        const content = `${mentioned.map((u) => `@${u.username}`).join(' ')} burst ${n} (${tag})`;
        sent.push(
          send(apiUrl, 'overload:comment', 'POST', `/recipes/${recipe.id}/comments`, {
            body: { content },
            token: author.token,
          }).then((answer) => {
            if (answer.status === 201) {
              world.comments.push({
                id: answer.body.comment.id,
                targetType: 'recipe',
                targetId: recipe.id,
                authorId: author.id,
                mentioned: mentioned.map((u) => u.id),
              });
            }
            if (answer.atCapacity) refusedTags.push(tag);
            return answer;
          }),
        );
      } else {
        const path = rng.chance(0.5) ? `/recipes/${recipe.id}` : `/recipes/${recipe.id}/comments`;
        sent.push(send(apiUrl, 'overload:read', 'GET', path, { token: author.token }));
      }
    }
    for (const { body: _body, ...answer } of await Promise.all(sent)) requests.push({ ...answer, burst: n });
    bursts = n;
  }

  let running = true;
  const loop = (async () => {
    for (let n = 1; running; n += 1) {
      await sleep(rng.between(...pauseMs));
      if (running) await burst(n);
    }
  })();

  let stopped;
  return {
    requests,
    /** Resolves once the burst under way is answered; again, at once. */
    stop() {
      running = false;
      stopped ??= loop;
      return stopped;
    },
    /** The checks of the bursts' answers and of what the refused ones left in `db`, as rows of the campaign's table. */
    async checks(db) {
      return [answers(requests, bursts), await refusedLeftNothing(db, requests, refusedTags)];
    },
  };
}

const row = (check, failures, figures) => ({ check, result: failures === 0 ? 'PASS' : 'FAIL', figures });

/** Every answer one the clients may get (2xx, 404/409, 503/504/none), and some refused at capacity. */
function answers(requests, bursts) {
  const unexpected = requests.filter((r) => outcomeOf(r.status, r.action) === 'unexpected');
  const atCapacity = requests.filter((r) => r.atCapacity).length;
  const ok = requests.filter((r) => outcomeOf(r.status) === 'ok').length;
  // Bursts the gateway never refused prove nothing about overload: the lane must have been refused too.
  return row(
    'overload bursts: answers 2xx, 404/409, or 503/504/none; some refused at capacity',
    unexpected.length + (atCapacity === 0 ? 1 : 0),
    `${bursts} bursts, ${requests.length} requests: ${ok} 2xx, ${atCapacity} 503 at capacity (Retry-After), ${unexpected.length} unexpected` +
      unexpected
        .slice(0, 3)
        .map((r) => `; ${r.status} ${r.method} ${r.path}`)
        .join(''),
  );
}

/** A comment refused at capacity never reached the comments service: none of their tags is stored. */
async function refusedLeftNothing(db, requests, refusedTags) {
  const { rows } = await db.query(
    `SELECT count(*)::int AS stored FROM comments.comments c
      WHERE substring(c.content FROM '\\((overload-[0-9a-f-]+)\\)$') = ANY($1::text[])`,
    [refusedTags],
  );
  const created = requests.filter((r) => r.action === 'overload:comment' && r.status === 201).length;
  return row(
    'overload bursts: comments refused at capacity left nothing',
    rows[0].stored,
    `${refusedTags.length} refused at capacity: ${rows[0].stored} stored; ${created} answered 201`,
  );
}
