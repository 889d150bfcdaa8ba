// The data export of a user with many comments (docs/api.md §11.2): the users service writes the document
// as it gathers it, a page of 200 a time from each owning service, so its memory should stay flat however
// much the user made. The comments go straight into the comments schema (through the API 10,000 would
// take minutes), on a recipe of the user's made through the API, its count kept as the seed keeps them.
import { setTimeout as pause } from 'node:timers/promises';
import { rssMb } from './memory.mjs';
import { register, until } from './seed.mjs';

/** The export's path as the OpenAPI document names it. */
export const EXPORT_PATH = '/api/users/me/export';

async function created(url, token, body) {
  const response = await fetch(url, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  if (response.status !== 201) throw new Error(`POST ${url}: ${response.status} ${await response.text()}`);
  return response.json();
}

/** A user with `comments` comments on a recipe of theirs, and the recipe; waits until comments knows of the recipe. */
async function seedExporter(system, pools, comments) {
  const { user, token } = await register(system.urlOf, `bench_exporter_${Date.now().toString(36)}`);
  const { recipe } = await created(`${system.urlOf('gateway')}/api/recipes`, token, {
    title: 'Exported',
    cameraModel: 'X100V',
    filmSimulation: 'Classic Chrome',
  });
  await until('comments to know the exporter and their recipe', async () => {
    const { rows } = await pools.comments.query(
      'SELECT (SELECT count(*) FROM users WHERE id = $1)::int + (SELECT count(*) FROM content_items WHERE id = $2)::int AS n',
      [user.id, recipe.id],
    );
    return rows[0].n === 2;
  });
  await pools.comments.query(
    `INSERT INTO comments.comments (id, target_type, target_id, author_id, content, created_at)
     SELECT gen_random_uuid(), 'recipe', $1, $2, 'Comment ' || n || ': lovely tones, less grain next time?',
            date_trunc('milliseconds', now()) - ($3 - n) * interval '1 second'
       FROM generate_series(1, $3::int) AS n`,
    [recipe.id, user.id, comments],
  );
  await pools.content.query('UPDATE content.recipes SET comment_count = comment_count + $2 WHERE id = $1', [
    recipe.id,
    comments,
  ]);
  return { token };
}

/**
 * One GET /api/users/me/export through the gateway of a user with `comments` comments: the time to the
 * first and the last byte, the bytes, how many comments the document holds, and the users service's RSS
 * (from /proc, every `sampleEveryMs`) just before and at its peak during the export.
 */
export async function exportCost({ system, pools, comments = 10_000, sampleEveryMs = 10 }) {
  const { token } = await seedExporter(system, pools, comments);
  const { pid } = system.process('users');
  await pause(1_000); // what the seed's own requests left in the users service settles
  const rssBeforeMb = rssMb(pid);
  let rssPeakMb = rssBeforeMb;
  const sample = () => {
    rssPeakMb = Math.max(rssPeakMb, rssMb(pid) ?? 0);
  };
  const sampler = setInterval(sample, sampleEveryMs);
  const started = performance.now();
  let firstByteMs;
  let bytes = 0;
  const chunks = [];
  let status;
  try {
    const response = await fetch(`${system.urlOf('gateway')}${EXPORT_PATH}`, {
      headers: { authorization: `Bearer ${token}` },
    });
    status = response.status;
    for await (const chunk of response.body) {
      firstByteMs ??= performance.now() - started;
      bytes += chunk.length;
      chunks.push(chunk);
    }
  } finally {
    clearInterval(sampler);
  }
  const lastByteMs = performance.now() - started;
  sample();
  const document = status === 200 ? JSON.parse(Buffer.concat(chunks).toString('utf8')) : undefined;
  return {
    status,
    comments,
    exportedComments: document?.comments?.length ?? 0,
    bytes,
    firstByteMs: Math.round(firstByteMs ?? lastByteMs),
    lastByteMs: Math.round(lastByteMs),
    rssBeforeMb,
    rssPeakMb,
    rssGrowthMb: +(rssPeakMb - rssBeforeMb).toFixed(1),
  };
}
