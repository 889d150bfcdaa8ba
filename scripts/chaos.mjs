#!/usr/bin/env node
// A seeded fault campaign against the whole system, on the local PostgreSQL and RabbitMQ (it stops and
// starts them: anything else using them loses them for a few seconds at a time):
//   npm run chaos -- [--seed N] [--minutes M] [--lanes a,b] [--logs]
// Lanes of faults run at once (scripts/chaos/README.md; `--lanes` picks some), paced so that each kind
// comes ~6 times a minute. Prints each fault as it happens, then the tables of the
// workload, the faults and the invariants. A failing run prints its seed and exits 1; `--seed`
// replays its fault schedule. Uses the built services (npm run build).
import { parseArgs } from 'node:util';
import { runCampaign } from './chaos/campaign.mjs';
import { LANES } from './chaos/lanes.mjs';
import { randomSeed } from './chaos/random.mjs';
import { formatResult } from './chaos/report.mjs';

const usage = 'usage: npm run chaos -- [--seed N] [--minutes M] [--lanes a,b] [--logs]';

function fail(message) {
  process.stderr.write(`${message}\n${usage}\n`);
  process.exit(64); // EX_USAGE
}

let values;
try {
  ({ values } = parseArgs({
    options: {
      seed: { type: 'string' },
      minutes: { type: 'string' },
      lanes: { type: 'string' },
      logs: { type: 'boolean' },
    },
  }));
} catch (error) {
  fail(error.message);
}
const seed = values.seed === undefined ? randomSeed() : Number(values.seed);
const minutes = values.minutes === undefined ? 10 : Number(values.minutes);
if (!Number.isInteger(seed) || seed < 0) fail('--seed must be a non-negative integer');
if (!(minutes > 0)) fail('--minutes must be a positive number');
// Some lanes only (scripts/chaos/lanes.mjs), e.g. those that leave the shared servers running.
const lanes = values.lanes?.split(',').map((name) => name.trim());
const unknown = lanes?.filter((name) => !LANES.some((lane) => lane.name === name)) ?? [];
if (unknown.length > 0)
  fail(`no lane ${unknown.join(', ')}: the lanes are ${LANES.map((lane) => lane.name).join(', ')}`);

// A signal ends the fault phase; the campaign then restores every server and stops every process itself.
const interrupted = new AbortController();
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
  process.on(signal, () => {
    if (!interrupted.signal.aborted)
      console.log(`\n${signal}: restoring every server and stopping the system (seed ${seed})…`);
    interrupted.abort();
  });
}

// Whatever goes wrong, the finally blocks of the campaign must still run: an error nobody caught ends
// the faults like a signal does, instead of ending the process with the servers stopped.
for (const event of ['uncaughtException', 'unhandledRejection']) {
  process.on(event, (error) => {
    console.error(`chaos: ${event}: ${error?.stack ?? error}`);
    process.exitCode = 1;
    interrupted.abort();
  });
}

console.log(`chaos: seed ${seed}, ${minutes} min of faults (replay with --seed ${seed})`);
try {
  // Without --logs, the services' logs are kept, to show the last lines of one that exits unasked.
  const result = await runCampaign({
    seed,
    minutes,
    lanes,
    signal: interrupted.signal,
    logs: values.logs ? 'inherit' : 'pipe',
  });
  console.log(`\n${formatResult(result)}`);
  process.exitCode = result.passed ? 0 : 1;
} catch (error) {
  // Interrupted: the campaign has restored the servers and stopped the system; there is nothing to check.
  console.error(interrupted.signal.aborted ? `chaos: ${error.message}` : `chaos: ${error.stack ?? error.message}`);
  console.error(`FAIL: replay with --seed ${seed}`);
  process.exitCode = 1;
}
