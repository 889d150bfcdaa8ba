import { afterAll, expect, inject, it } from 'vitest';
import { type CampaignResult, FAULT_KINDS, formatResult, runCampaign } from '../../scripts/chaos/campaign.mjs';

/**
 * A short seeded fault campaign (scripts/chaos): two instances of every backend service under a
 * workload through the gateway while, all at once, PostgreSQL and RabbitMQ stop and start, connections
 * drop, stall or are cut, and instances are killed (at least two faults of each kind in 45 s), a
 * hostile user pushes at the limits meanwhile (scripts/chaos/hostile.mjs), and bursts of a few hundred
 * requests in a second go past the system's capacity (scripts/chaos/overload.mjs); afterwards every
 * invariant of the stored data holds, the hostile user never got a 500 nor got past a limit, and the
 * bursts were refused in part at capacity, with nothing stored of what was refused. Stops the shared servers again and
 * again for a
 * minute: other test files lose them too. Replay a failure with
 * `npm run chaos -- --seed <seed> --minutes 0.75`.
 */
const SEED = 20_240_611;

const interrupted = new AbortController();
let campaign: Promise<CampaignResult> | undefined;

afterAll(async () => {
  // A campaign still running (the test timed out) ends its faults, restores every server it stopped
  // and stops its processes before the next file runs.
  interrupted.abort();
  await campaign?.catch(() => undefined);
}, 120_000);

it('keeps every invariant through a seeded fault campaign with every kind of fault', async () => {
  campaign = runCampaign({
    seed: SEED,
    minutes: 0.75,
    // Two of each kind in the 45 s (npm run chaos: 6.2 a minute): a killed instance now takes 13–30 s
    // to be ready again while the other lanes stop its servers, so more kills do not fit.
    perKindPerMinute: 3,
    name: 'recipes_fault_chaos',
    portOffset: 2900,
    databaseUrl: inject('databaseUrl'),
    amqpUrl: inject('amqpUrl'),
    containers: inject('containers'),
    settleTimeoutMs: 45_000,
    keepDatabase: false,
    // Kept, so that a process that exits unasked shows its last log lines.
    logs: 'pipe',
    signal: interrupted.signal,
    log: (line) => console.log(line),
  });
  const result = await campaign;
  const report = formatResult(result);
  console.log(report);

  expect(
    result.rows.filter((row) => row.result !== 'PASS'),
    report,
  ).toEqual([]);
  expect(
    FAULT_KINDS.filter((kind) => result.faults[kind] === 0),
    'kinds never injected',
  ).toEqual([]);
}, 170_000);
