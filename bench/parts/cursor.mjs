import { cursorPaging } from '../cursor.mjs';

/** `cursor`: page 1 and page 1,000 of a deep inbox, by cursor and by page number (bench/cursor.mjs). */
export async function cursorPart({ system, pools, config, phase, rows, target, saved }) {
  saved.cursorFigures = await phase(
    `cursor paging: ${config.cursorRows} notifications of one recipient, page 1 and page 1,000 of 20, ${config.cursorSeconds} s each`,
    () => cursorPaging(system, pools, { rows: config.cursorRows, seconds: config.cursorSeconds }),
  );
  const { cursorFigures } = saved;
  for (const { name, ...figures } of cursorFigures.figures) {
    rows.push({
      scenario: `GET /api/notifications ${name}, ${config.cursorRows} notifications, one at a time`,
      via: 'gateway',
      connections: 1,
      ...figures,
    });
  }
  const [first, byCursor, byPage] = cursorFigures.figures;
  target(
    `cursor paging: page 1,000 by cursor within 1.5× of page 1 (p50, ${config.cursorRows} notifications of one recipient)`,
    `page 1 ${first.p50Ms} ms, page 1,000 by cursor ${byCursor.p50Ms} ms (${cursorFigures.ratio}×), by page number ${byPage.p50Ms} ms`,
    cursorFigures.within,
  );
}
