// Bursts (docs/architecture.md §10): requests that arrive together on an otherwise idle system, through
// the gateway with every setting at its default. A burst is not overload: every one must be served (0
// refused), waiting in the gateway's queue if it must; the p99 says how long the last ones waited.
import { Agent } from 'node:http';
import { schedule, tally } from './open-loop.mjs';

export const BURST_SIZES = [50, 100, 200];
/** Each size this many times, an idle pause before each: one lucky round proves little. */
const ROUNDS = 3;
/** Long enough for the last burst's events to be handled and the admission limits to have settled. */
const IDLE_MS = 3_000;

const pause = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * The three kinds of request the bursts are made of, sent to `front` (the gateway's URL, or a front's before it):
 * `next(i, round)` gives request i of a round.
 */
export async function burstWorkloads(front, pools, fixture) {
  const { rows: people } = await pools.public.query('SELECT k FROM bench_people ORDER BY k LIMIT 20');
  const json = { 'content-type': 'application/json' };
  const commentsPath = `/api/recipes/${fixture.recipeId}/comments`;
  // Usernames are at most 30 letters, digits and underscores: `b_<stamp>_<size>x<round>_<i>` is at most 25.
  const stamp = Date.now().toString(36);
  return [
    {
      short: 'mentions',
      name: 'POST /api/recipes/{id}/comments, each mentioning one user',
      next: (i, round) => ({
        method: 'POST',
        url: `${front}${commentsPath}`,
        headers: { ...json, authorization: `Bearer ${fixture.viewer.token}` },
        body: JSON.stringify({ content: `Burst ${round} ${i} for @bench_user_${people[i % people.length].k}` }),
      }),
    },
    { short: 'list', name: 'GET /api/recipes/{id}/comments', next: () => ({ url: `${front}${commentsPath}` }) },
    {
      short: 'registrations',
      name: 'POST /api/auth/register',
      next: (i, round) => ({
        method: 'POST',
        url: `${front}/api/auth/register`,
        headers: json,
        body: JSON.stringify({ username: `b_${stamp}_${round}_${i}`, password: 'bench password' }),
      }),
    },
  ];
}

/** `size` requests of `workload` at once, each on a connection of its own, as that many clients would send them. */
async function burst(workload, size, round) {
  const agent = new Agent({ keepAlive: false });
  try {
    const startedAt = performance.now();
    // A rate no generator reaches: every request is due at once.
    const { answers } = await schedule((i) => workload.next(i, round), [{ rate: 1e6, seconds: size / 1e6 }], { agent });
    return { ...tally(answers), seconds: +((performance.now() - startedAt) / 1000).toFixed(2) };
  } finally {
    agent.destroy();
  }
}

/** Every workload at every size, `ROUNDS` times, after an idle pause each: figures per workload and size. */
export async function burstRounds(workloads, via = 'gateway') {
  const results = [];
  for (const workload of workloads) {
    for (const size of BURST_SIZES) {
      const rounds = [];
      for (let round = 0; round < ROUNDS; round++) {
        await pause(IDLE_MS);
        const figures = await burst(workload, size, `${size}x${round}`);
        console.log(`    ${workload.short} × ${size} via ${via}, round ${round + 1}: ${JSON.stringify(figures)}`);
        rounds.push(figures);
      }
      results.push({ workload: workload.name, short: workload.short, size, rounds });
    }
  }
  return results;
}
