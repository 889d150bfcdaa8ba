import { spawn } from 'node:child_process';
import { cpuPer, cpuSample } from '../cpu.mjs';
import { loginCost } from '../logins.mjs';
import { measure, sequential } from '../measure.mjs';
import { sampleRss } from '../memory.mjs';
import { mentionLatency } from '../mentions.mjs';
import { outboxDrain } from '../outbox.mjs';
import { commentPostScenario } from '../scenarios.mjs';
import { growOthers, OWNED, tableSizes } from '../seed.mjs';
import { PORT_OFFSET, ratio } from './context.mjs';

const CEILING_PORT = 3099 + PORT_OFFSET;
const OVERHEAD_SCENARIO = 'GET /api/users/{id}/recipes';

const pause = (seconds) => new Promise((resolve) => setTimeout(resolve, seconds * 1000));

/**
 * What runs only in the whole bench (no BENCH_ONLY): the CPU of a login; page 1 of each listing at two
 * table sizes; every GET and the comment POST beside a bare Fastify "hello", the gateway's overhead and
 * mention-to-notification latency, all within the memory soak; then the outbox relay's pace.
 */
export async function wholeBenchPart(ctx) {
  const { system, fixture, config, phase, saved } = ctx;
  // The viewer's password, as seed.mjs registers every bench user.
  const viewerLogin = { username: fixture.viewer.user.username, password: 'bench password' };
  saved.cpuPerLogin = await phase(`${config.logins} logins, one at a time`, () =>
    loginCost(system, viewerLogin, { logins: config.logins }),
  );

  await scale(ctx);
  await soak(ctx);
  await outbox(ctx);
}

async function scale({ system, pools, scenarios, config, phase, rows, target, saved }) {
  const { urlOf } = system;
  // Scale: page 1 of each listing, one request at a time, directly, with the table small and then large.
  const listings = scenarios.filter((s) => s.listing);
  const others = (rowsInTable) => rowsInTable - OWNED;
  const pageTimes = async () => {
    const sizes = await tableSizes(pools);
    const times = {};
    for (const s of listings)
      times[s.name] = await sequential({
        url: `${urlOf(s.service)}${s.path}`,
        headers: s.headers,
        seconds: config.scaleSeconds,
      });
    return { sizes, times };
  };
  await phase(`grow the tables to ${config.smallRows.toLocaleString('en')} rows`, () =>
    growOthers(pools, 0, others(config.smallRows)),
  );
  const small = await phase('page 1 of each listing, small tables', () => pageTimes());
  await phase(`grow the tables to ${config.largeRows.toLocaleString('en')} rows`, () =>
    growOthers(pools, others(config.smallRows), others(config.largeRows)),
  );
  const large = await phase('page 1 of each listing, large tables', () => pageTimes());
  saved.tableRows = { small: small.sizes, large: large.sizes };
  console.log('rows per table, small and large:', saved.tableRows);
  for (const s of listings) {
    const [before, after] = [small.times[s.name], large.times[s.name]];
    rows.push({ scenario: s.name, via: `direct (${s.service}), ~${config.smallRows} rows`, connections: 1, ...before });
    rows.push({
      scenario: s.name,
      via: `direct (${s.service}), ~${config.largeRows} rows`,
      connections: 1,
      ...after,
      largeOverSmall: ratio(after.p50Ms, before.p50Ms),
    });
    target(
      `scale: ${s.name} page 1 at 1M rows ≤ 1.5 × at 1k (p50, 1 connection)`,
      `${before.p50Ms} → ${after.p50Ms} ms (${ratio(after.p50Ms, before.p50Ms)}×)`,
      after.p50Ms <= 1.5 * before.p50Ms && after.errors === 0,
    );
  }
}

async function soak(ctx) {
  const { system, scenarios, config, phase, rows, target, saved } = ctx;
  const { urlOf } = system;
  // Memory: a first pass over every service at full load, a quiet moment, then the baseline; the soak
  // is everything from there to the end sample, topped up with load to BENCH_SOAK_SECONDS.
  const loadRound = async (seconds) => {
    for (const s of scenarios)
      await measure({
        url: `${urlOf('gateway')}${s.path}`,
        headers: s.headers,
        connections: config.connections,
        durationSeconds: seconds,
        warmupSeconds: 0,
      });
  };
  const baseline = await phase('warm-up and memory baseline', async () => {
    await loadRound(1);
    await pause(config.quietSeconds);
    return await sampleRss(system);
  });
  const soakStart = performance.now();

  await underLoad(ctx);

  const topUp = config.soakSeconds - (performance.now() - soakStart) / 1000;
  if (topUp > 0) {
    await phase('soak: more load on every GET until the soak is long enough', async () => {
      const each = Math.max(1, Math.ceil(topUp / scenarios.length));
      while ((performance.now() - soakStart) / 1000 < config.soakSeconds) await loadRound(Math.min(each, 5));
    });
  }
  saved.memory = await phase('memory after a quiet moment', async () => {
    await pause(config.quietSeconds);
    return {
      baseline,
      end: await sampleRss(system),
      soakSeconds: +((performance.now() - soakStart) / 1000).toFixed(0),
    };
  });
  const { memory } = saved;
  for (const [process, endMb] of Object.entries(memory.end.afterGc)) {
    const baselineMb = memory.baseline.afterGc[process];
    const growth = +(endMb - baselineMb).toFixed(1);
    rows.push({
      scenario: `memory of ${process}`,
      via: 'VmRSS',
      rssBaselineMb: baselineMb,
      rssEndMb: endMb,
      rssGrowthMb: growth,
      rssBaselineAsLeftMb: memory.baseline.asLeft[process],
      rssEndAsLeftMb: memory.end.asLeft[process],
    });
    target(
      `${process}: RSS < 150 MB after the benchmark (after a full GC; as left beside)`,
      `${endMb} MB (as left ${memory.end.asLeft[process]} MB)`,
      endMb < 150,
    );
    target(
      `${process}: no RSS growth over the ${memory.soakSeconds} s soak (end − baseline ≤ 10 MB, both after a full GC)`,
      `${baselineMb} → ${endMb} MB (${growth >= 0 ? '+' : ''}${growth})`,
      growth <= 10 && memory.soakSeconds >= 300,
    );
  }
}

/** Within the soak: the ceiling, every GET and the comment POST, the gateway's overhead, mentions. */
async function underLoad({ system, pools, fixture, scenarios, config, phase, rows, target, saved }) {
  const { urlOf } = system;
  const ceiling = await phase('ceiling: bare Fastify hello', () =>
    withCeiling((url) => measure({ url, connections: config.connections, durationSeconds: config.durationSeconds })),
  );
  rows.push({ scenario: 'bare Fastify hello (ceiling)', via: 'direct', connections: config.connections, ...ceiling });

  await phase(`every GET and the comment POST, ${config.connections} connections`, async () => {
    for (const s of [...scenarios, commentPostScenario(fixture)]) {
      const options = {
        method: s.method,
        headers: s.headers,
        body: s.body,
        connections: config.connections,
        durationSeconds: config.durationSeconds,
      };
      const direct = await measure({ ...options, url: `${urlOf(s.service)}${s.path}` });
      const gateway = await measure({ ...options, url: `${urlOf('gateway')}${s.path}` });
      rows.push({
        scenario: s.name,
        via: `direct (${s.service})`,
        connections: config.connections,
        ...direct,
        ofCeiling: ratio(direct.requestsPerSecond, ceiling.requestsPerSecond),
      });
      rows.push({
        scenario: s.name,
        via: 'gateway',
        connections: config.connections,
        ...gateway,
        ofCeiling: ratio(gateway.requestsPerSecond, ceiling.requestsPerSecond),
        gatewayOverDirect: ratio(gateway.requestsPerSecond, direct.requestsPerSecond),
      });
      if (s.method) continue;
      target(
        `${s.name}: p99 < 50 ms at ${config.connections} connections, no errors (gateway; direct beside)`,
        `gateway p99 ${gateway.p99Ms} ms, ${gateway.errors} errors; direct p99 ${direct.p99Ms} ms, ${direct.errors} errors`,
        gateway.p99Ms < 50 && gateway.errors === 0 && direct.errors === 0,
      );
      if (s.name === OVERHEAD_SCENARIO) {
        target(
          `gateway throughput ≥ 60% of direct on ${s.name} (${config.connections} connections)`,
          `${gateway.requestsPerSecond} / ${direct.requestsPerSecond} req/s = ${ratio(gateway.requestsPerSecond, direct.requestsPerSecond)}`,
          gateway.requestsPerSecond >= 0.6 * direct.requestsPerSecond,
        );
      }
    }
  });

  await phase('gateway overhead, one request at a time', async () => {
    const s = scenarios.find((scenario) => scenario.name === OVERHEAD_SCENARIO);
    const direct = await sequential({
      url: `${urlOf(s.service)}${s.path}`,
      headers: s.headers,
      seconds: config.durationSeconds,
    });
    const gateway = await sequential({
      url: `${urlOf('gateway')}${s.path}`,
      headers: s.headers,
      seconds: config.durationSeconds,
    });
    rows.push({ scenario: s.name, via: `direct (${s.service})`, connections: 1, ...direct });
    rows.push({
      scenario: s.name,
      via: 'gateway',
      connections: 1,
      ...gateway,
      p50OverheadMs: +(gateway.p50Ms - direct.p50Ms).toFixed(3),
    });
    target(
      `gateway adds ≤ 1 ms to p50 on ${s.name} (1 connection)`,
      `${gateway.p50Ms} − ${direct.p50Ms} = ${(gateway.p50Ms - direct.p50Ms).toFixed(3)} ms`,
      gateway.p50Ms - direct.p50Ms <= 1,
    );
  });

  await phase(`mention → notification, ${config.mentionRate} comments/s for ${config.mentionSeconds} s`, async () => {
    const [cpuBefore, ownCpu] = [cpuSample(system), process.cpuUsage()];
    const mention = await mentionLatency(system, pools, fixture, {
      rate: config.mentionRate,
      seconds: config.mentionSeconds,
    });
    saved.cpuPerMention = cpuPer(mention.sent, cpuBefore, cpuSample(system), process.cpuUsage(ownCpu));
    rows.push({
      scenario: `POST comment → mention stored (${mention.sent} at ${config.mentionRate}/s)`,
      via: 'gateway, end to end',
      connections: null,
      ...mention,
    });
    target(
      `mention to notification p99 < 100 ms at ${config.mentionRate}/s for ${config.mentionSeconds} s`,
      `p99 ${mention.p99Ms} ms, sent at ${mention.requestsPerSecond}/s, ${mention.errors} of ${mention.sent} not stored`,
      mention.p99Ms !== null &&
        mention.p99Ms < 100 &&
        mention.errors === 0 &&
        mention.requestsPerSecond >= 0.95 * config.mentionRate,
    );
  });
}

async function outbox({ system, pools, config, phase, rows, target }) {
  await phase(`outbox relay: a backlog of ${config.outboxEvents.toLocaleString('en')} events`, async () => {
    const drain = await outboxDrain(system, pools, { events: config.outboxEvents });
    rows.push({
      scenario: `outbox backlog of ${drain.events} collection.created`,
      via: 'collections relay',
      requestsPerSecond: drain.eventsPerSecond,
      ...drain,
    });
    target(
      'outbox relay drains ≥ 5,000 events/s',
      `${drain.eventsPerSecond} events/s (${drain.leftAtReady} left when ready, empty ${drain.drainSeconds} s ` +
        `later; boot ${drain.startSeconds} s; all consumed by comments ${drain.consumedSeconds} s after ready)`,
      drain.eventsPerSecond >= 5_000,
    );
  });
}

async function withCeiling(run) {
  const child = spawn(process.execPath, ['bench/ceiling.mjs'], {
    env: { ...process.env, PORT: String(CEILING_PORT) },
    stdio: 'inherit',
  });
  try {
    const url = `http://127.0.0.1:${CEILING_PORT}/`;
    for (let answered = false; !answered;)
      answered = await fetch(url).then(
        (r) => r.ok,
        () => pause(0.05).then(() => false),
      );
    return await run(url);
  } finally {
    child.kill('SIGTERM');
  }
}
