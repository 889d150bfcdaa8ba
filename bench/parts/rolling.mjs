import { rollingRestart } from '../rolling.mjs';

/** `rolling`: every instance of a two-instance system restarted in turn under load (bench/rolling.mjs). */
export async function rollingPart({ phase, rows, target, saved }) {
  saved.rolling = await phase(
    'rolling restart: two instances of every service, each stopped (SIGTERM) and started in turn under load',
    rollingRestart,
  );
  const { rolling } = saved;
  rows.push({
    scenario: `rolling restart of ${rolling.restarts} instances (${rolling.requests} requests, ${rolling.posted} mentions posted)`,
    via: 'gateway',
    ...rolling,
  });
  target(
    'rolling restart: 0 client errors, 0 notifications lost or doubled, streams miss nothing',
    `${rolling.errors} errors${rolling.errorKinds ? ` (${rolling.errorKinds})` : ''} of ${rolling.requests}; ${rolling.lost} lost, ${rolling.doubled} ` +
      `doubled of ${rolling.posted}; streams reopened ${rolling.streamReopens} times, missed ${rolling.streamMissed}, doubled ${rolling.streamDoubled}`,
    rolling.errors === 0 &&
      rolling.lost === 0 &&
      rolling.doubled === 0 &&
      rolling.streamMissed === 0 &&
      rolling.streamDoubled === 0 &&
      rolling.posted > 0,
  );
}
