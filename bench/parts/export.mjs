import { exportCost } from '../export.mjs';

/** "Memory flat": how much the users service's RSS may grow while it writes an export (docs/api.md §11.2). */
const EXPORT_RSS_GROWTH_MB = 50;

/**
 * `export`: GET /api/users/me/export of a user with a tenth of BENCH_EXPORT_COMMENTS comments, then of one with
 * all of them: their time and the users service's peak RSS (bench/export.mjs). Flat memory grows no more with
 * the larger one.
 */
export async function exportPart({ system, pools, config, phase, rows, target, saved }) {
  const sizes = [Math.round(config.exportComments / 10), config.exportComments];
  saved.export = [];
  for (const comments of sizes)
    saved.export.push(
      await phase(`export: a user with ${comments} comments, GET /api/users/me/export`, () =>
        exportCost({ system, pools, comments }),
      ),
    );
  const mb = (e) => (e.bytes / 1024 / 1024).toFixed(1);
  for (const e of saved.export)
    rows.push({
      scenario: `GET /api/users/me/export, ${e.comments} comments (${mb(e)} MB), one request`,
      via: 'gateway',
      connections: 1,
      status: e.status,
      firstByteMs: e.firstByteMs,
      lastByteMs: e.lastByteMs,
      usersRssBeforeMb: e.rssBeforeMb,
      usersRssPeakMb: e.rssPeakMb,
    });
  const [small, large] = saved.export;
  target(
    `export: the users service's peak RSS during the export of ${large.comments} comments ≤ its RSS before + ${EXPORT_RSS_GROWTH_MB} MB ("memory flat")`,
    `${large.rssBeforeMb} → ${large.rssPeakMb} MB (+${large.rssGrowthMb}; +${small.rssGrowthMb} with ${small.comments}); ` +
      `${mb(large)} MB with ${large.exportedComments} comments in ${large.lastByteMs} ms (first byte ${large.firstByteMs} ms)`,
    saved.export.every((e) => e.status === 200 && e.exportedComments === e.comments) &&
      large.rssGrowthMb <= EXPORT_RSS_GROWTH_MB,
  );
}
