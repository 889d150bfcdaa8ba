// The campaign's results as plain-text tables.
import { outcomeOf } from './client.mjs';

/** `rows` (objects with the same keys) as a table with a header line, columns padded to fit. */
export function table(rows) {
  if (rows.length === 0) return '(none)';
  const columns = Object.keys(rows[0]);
  const cells = [columns, ...rows.map((r) => columns.map((c) => String(r[c] ?? '')))];
  const widths = columns.map((_, i) => Math.max(...cells.map((line) => line[i].length)));
  const line = (values) => values.map((v, i) => v.padEnd(widths[i])).join('  ').trimEnd();
  return [line(cells[0]), line(widths.map((w) => '-'.repeat(w))), ...cells.slice(1).map(line)].join('\n');
}

/** Per action: how many requests, and what their clients were told. */
export function workloadSummary(requests) {
  const byAction = new Map();
  for (const { action, status } of requests) {
    const entry = byAction.get(action) ?? { action, requests: 0, ok: 0, refused: 0, unavailable: 0, unexpected: 0, statuses: new Map() };
    entry.requests += 1;
    entry[outcomeOf(status)] += 1;
    entry.statuses.set(status, (entry.statuses.get(status) ?? 0) + 1);
    byAction.set(action, entry);
  }
  return [...byAction.values()]
    .sort((a, b) => a.action.localeCompare(b.action))
    .map(({ statuses, ...entry }) => ({
      ...entry,
      statuses: [...statuses].sort(([a], [b]) => a - b).map(([status, n]) => `${status || 'none'}×${n}`).join(' '),
    }));
}

export function formatResult(result) {
  return [
    `Workload (${result.requests} requests):`,
    table(result.workload),
    '',
    'Faults:',
    table(Object.entries(result.faults).map(([kind, injected]) => ({ kind, injected }))),
    '',
    `Invariants (seed ${result.seed}, ${result.minutes} min of faults, ${result.seconds} s in all${result.database ? `, database ${result.database} kept` : ''}):`,
    table(result.rows),
    '',
    result.passed ? `PASS (seed ${result.seed})` : `FAIL: replay with --seed ${result.seed}`,
  ].join('\n');
}
