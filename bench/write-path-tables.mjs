// The tables bench/run.mjs prints for the `writepath` part (bench/write-path.mjs), after its rows and targets.

const NAMES = { system: 'system', reference: 'plain Node', architecture: 'the architecture’s floor' };

/** One row per part of any side, a column per side (`bySide`: side → part → figure), and `extra(part)`'s. */
const sideBySide = (bySide, extra = () => ({})) =>
  Object.fromEntries(
    [...new Set(Object.values(bySide).flatMap((figures) => Object.keys(figures)))].map((part) => [
      part,
      {
        ...Object.fromEntries(Object.entries(bySide).map(([side, figures]) => [NAMES[side], figures[part] ?? null])),
        ...extra(part),
      },
    ]),
  );
const of = (bySide, pick) => Object.fromEntries(Object.entries(bySide).map(([side, value]) => [side, pick(value)]));

export function printWritePath({ rate, runs, shares, roundTrips, capacity, notificationCases }) {
  console.log(
    `\nWrite path: CPU ms per mentioned comment at ${rate}/s, by process (PostgreSQL: the bench database's backends and the server's own processes);` +
      ' beside, the CPU ms a second each spent idle just before',
  );
  const idleCpu = (part) =>
    Object.fromEntries(
      Object.entries(runs).map(([side, run]) => [`${NAMES[side]} idle, ms/s`, run.idleCpu[part] ?? null]),
    );
  console.table(
    sideBySide(
      of(runs, (run) => run.cpu),
      idleCpu,
    ),
  );
  console.log(
    'Write path: CPU ms per mentioned comment of the system and the architecture’s floor at shares of the lowest capacity, by process',
  );
  for (const { share, rate: at, runs: both } of shares) {
    console.log(`  at ${share} × capacity, ${at}/s`);
    console.table(sideBySide(of(both, (run) => run.cpu)));
  }
  console.log(
    `Write path: round trips to PostgreSQL per mentioned comment at ${rate}/s, by process, less what each sends idle (idle per second beside)`,
  );
  const idlePerSecond = (part) => ({
    'idle/s': Object.values(roundTrips).find((counted) => part in counted.idlePerSecond)?.idlePerSecond[part] ?? null,
  });
  console.table(
    sideBySide(
      of(roundTrips, (counted) => ({ ...counted.byPart, total: counted.total })),
      idlePerSecond,
    ),
  );
  console.log('Write path: round trips per mentioned comment, by statement');
  console.table(Object.values(roundTrips).flatMap((counted) => counted.statements));
  console.log(
    `Write path: capacity steps (p50, p99: POST → event: notification), ` +
      Object.entries(capacity)
        .map(([side, found]) => `${NAMES[side]} ${found.capacity}/s, ended by ${found.endedBy.by ?? 'nothing'}`)
        .join('; '),
  );
  console.table(
    Object.entries(capacity).flatMap(([side, found]) => found.steps.map((step) => ({ of: side, ...step }))),
  );
  console.log(
    `Write path: the system's CPU ms per notification at ${rate}/s, by process, with one notification a comment and with two (total per comment last)`,
  );
  console.table(
    Object.fromEntries(
      notificationCases.map((run) => [run.case, { ...run.perNotification, 'total per comment': run.cpu.total }]),
    ),
  );
}
