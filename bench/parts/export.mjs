import { exportCost } from '../export.mjs';

/** "Memory flat": how much the users service's RSS may grow while it writes an export (docs/api.md §11.2). */
const EXPORT_RSS_GROWTH_MB = 50;

/** `export`: GET /api/users/me/export of a user with BENCH_EXPORT_COMMENTS comments, its time and the users service's peak RSS (bench/export.mjs). */
export async function exportPart({ system, pools, config, phase, rows, target, saved }) {
  saved.export = await phase(`export: a user with ${config.exportComments} comments, GET /api/users/me/export`, () =>
    exportCost({ system, pools, comments: config.exportComments }),
  );
  const e = saved.export;
  const mb = (e.bytes / 1024 / 1024).toFixed(1);
  rows.push({
    scenario: `GET /api/users/me/export, ${e.comments} comments (${mb} MB), one request`,
    via: 'gateway',
    connections: 1,
    status: e.status,
    firstByteMs: e.firstByteMs,
    lastByteMs: e.lastByteMs,
    usersRssBeforeMb: e.rssBeforeMb,
    usersRssPeakMb: e.rssPeakMb,
  });
  target(
    `export: the users service's peak RSS during the export of ${e.comments} comments ≤ its RSS before + ${EXPORT_RSS_GROWTH_MB} MB ("memory flat")`,
    `${e.rssBeforeMb} → ${e.rssPeakMb} MB (+${e.rssGrowthMb}); ${mb} MB with ${e.exportedComments} comments in ` +
      `${e.lastByteMs} ms (first byte ${e.firstByteMs} ms)`,
    e.status === 200 && e.exportedComments === e.comments && e.rssGrowthMb <= EXPORT_RSS_GROWTH_MB,
  );
}
