// The campaign's results as plain-text tables.
import { outcomeOf } from './client.mjs';
import { LANES } from './lanes.mjs';

/** `rows` (objects with the same keys) as a table with a header line, columns padded to fit. */
export function table(rows) {
  if (rows.length === 0) return '(none)';
  const columns = Object.keys(rows[0]);
  const cells = [columns, ...rows.map((r) => columns.map((c) => String(r[c] ?? '')))];
  const widths = columns.map((_, i) => Math.max(...cells.map((line) => line[i].length)));
  const line = (values) =>
    values
      .map((v, i) => v.padEnd(widths[i]))
      .join('  ')
      .trimEnd();
  return [line(cells[0]), line(widths.map((w) => '-'.repeat(w))), ...cells.slice(1).map(line)].join('\n');
}

/** Per action: how many requests, and what their clients were told. */
export function workloadSummary(requests) {
  const byAction = new Map();
  for (const { action, status } of requests) {
    const entry = byAction.get(action) ?? {
      action,
      requests: 0,
      ok: 0,
      refused: 0,
      unavailable: 0,
      unexpected: 0,
      statuses: new Map(),
    };
    entry.requests += 1;
    entry[outcomeOf(status, action)] += 1;
    entry.statuses.set(status, (entry.statuses.get(status) ?? 0) + 1);
    byAction.set(action, entry);
  }
  return [...byAction.values()]
    .sort((a, b) => a.action.localeCompare(b.action))
    .map(({ statuses, ...entry }) => ({
      ...entry,
      statuses: [...statuses]
        .sort(([a], [b]) => a - b)
        .map(([status, n]) => `${status || 'none'}×${n}`)
        .join(' '),
    }));
}

/** Per call of the hostile user's: how many, and what they were told. */
export function hostileSummary(requests) {
  const byAction = new Map();
  for (const { action, status } of requests) {
    const statuses = byAction.get(action) ?? new Map();
    statuses.set(status, (statuses.get(status) ?? 0) + 1);
    byAction.set(action, statuses);
  }
  return [...byAction]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([action, statuses]) => ({
      action,
      requests: [...statuses.values()].reduce((sum, n) => sum + n, 0),
      statuses: [...statuses]
        .sort(([a], [b]) => a - b)
        .map(([status, n]) => `${status || 'none'}×${n}`)
        .join(' '),
    }));
}

/**
 * Per burst above capacity (scripts/chaos/overload.mjs): how many requests, what they were told (503 at
 * capacity: the gateway's refusal, with Retry-After; unavailable: any other 503, 504 or none), and how
 * long the answers took, the refusals apart.
 */
export function burstSummary(requests) {
  const byBurst = new Map();
  for (const r of requests) byBurst.set(r.burst, [...(byBurst.get(r.burst) ?? []), r]);
  const median = (values) =>
    values.length === 0 ? '' : String(values.sort((a, b) => a - b)[Math.floor((values.length - 1) / 2)]);
  const max = (values) => (values.length === 0 ? '' : String(Math.max(...values)));
  return [...byBurst].map(([burst, answers]) => {
    const refused = answers.filter((r) => r.atCapacity).map((r) => r.ms);
    const others = answers.filter((r) => !r.atCapacity);
    return {
      burst,
      requests: answers.length,
      ok: others.filter((r) => outcomeOf(r.status, r.action) === 'ok').length,
      'at capacity': refused.length,
      unavailable: others.filter((r) => outcomeOf(r.status, r.action) === 'unavailable').length,
      refused: others.filter((r) => outcomeOf(r.status, r.action) === 'refused').length,
      unexpected: others.filter((r) => outcomeOf(r.status, r.action) === 'unexpected').length,
      'ms p50 / max': `${median(others.map((r) => r.ms))} / ${max(others.map((r) => r.ms))}`,
      'at capacity ms p50 / max': refused.length === 0 ? '' : `${median(refused)} / ${max(refused)}`,
    };
  });
}

/**
 * Per minute of the fault phase (by when each answer came): requests, 2xx, 201s and unavailable
 * answers, so that a campaign shows the system still made progress under its faults. Minute 0 is the
 * setup before the faults; a last partial minute is the lanes finishing their quota and last faults.
 */
export function perMinute(requests, faultsStarted) {
  const minutes = new Map();
  for (const { status, at } of requests) {
    const minute = at < faultsStarted ? 0 : Math.floor((at - faultsStarted) / 60_000) + 1;
    // Keys that are not integers, so that the columns keep this order.
    const entry = minutes.get(minute) ?? { minute, requests: 0, '2xx': 0, '201s': 0, unavailable: 0 };
    entry.requests += 1;
    if (outcomeOf(status) === 'ok') entry['2xx'] += 1;
    if (status === 201) entry['201s'] += 1;
    if (outcomeOf(status) === 'unavailable') entry.unavailable += 1;
    minutes.set(minute, entry);
  }
  return [...minutes.values()].sort((a, b) => a.minute - b.minute);
}

const laneOf = (kind) => LANES.find((lane) => lane.kinds.includes(kind))?.name;

export function formatResult(result) {
  const created = result.perMinute.reduce((sum, m) => sum + m['201s'], 0);
  return [
    `Workload (${result.requests} requests, ${created} answered 201):`,
    table(result.workload),
    '',
    'The hostile user (its checks are among the invariants):',
    table(result.hostile),
    '',
    'Bursts above capacity (their checks are among the invariants):',
    table(result.bursts),
    '',
    'Per minute of faults (0: setup before them):',
    table(result.perMinute),
    '',
    `Faults (${result.faultSeconds} s of faults, lanes at once):`,
    table(
      Object.entries(result.faults).map(([kind, injected]) => ({
        kind,
        lane: laneOf(kind),
        injected,
        minimum: result.quota[kind],
        'inject+undo s': result.faultCosts[kind].toFixed(2),
      })),
    ),
    '',
    `Invariants (seed ${result.seed}, ${result.minutes} min of faults, ${result.seconds} ` +
      `s in all${result.database ? `, database ${result.database} kept` : ''}):`,
    table(result.rows),
    '',
    result.passed ? `PASS (seed ${result.seed})` : `FAIL: replay with --seed ${result.seed}`,
  ].join('\n');
}
