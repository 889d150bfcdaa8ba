// Comments for `npm run bench`: the first page of a recipe with 10,000 comments, and posting a comment
// that mentions one user. The recipe, the commenters and the comments are written straight into the
// comments service's schema, so the numbers depend on no other service having told it about them.
import { randomUUID } from 'node:crypto';
import pg from 'pg';

const COMMENTS = 10_000;
const COMMENTERS = 50;

/** Settings for every process: one bench caller posts far more than a person may. */
export const commentsEnv = { COMMENT_LIMIT_PER_MINUTE: '100000000' };

async function register(urlOf, username) {
  const response = await fetch(`${urlOf('users')}/api/auth/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ username, password: 'bench password' }),
  });
  if (!response.ok) throw new Error(`register ${username}: ${response.status} ${await response.text()}`);
  return response.json();
}

/** Seeds the comments schema of the running bench system and returns the two comment scenarios. */
export async function commentScenarios({ urlOf, databaseUrl }) {
  const { user: poster, token } = await register(urlOf, 'bench_commenter');
  const { user: friend } = await register(urlOf, 'bench_friend');
  const recipeId = randomUUID();

  const client = new pg.Client({ connectionString: databaseUrl, options: '-c search_path=comments' });
  await client.connect();
  try {
    // The users' events may have arrived first: then the rows are there already, and the same.
    await client.query(
      `INSERT INTO users (id, username, avatar_url, revision)
       SELECT * FROM unnest($1::uuid[], $2::text[], $3::text[], $4::int[]) ON CONFLICT (id) DO NOTHING`,
      [[poster.id, friend.id], [poster.username, friend.username], [null, null], [0, 0]],
    );
    await client.query(
      `INSERT INTO users (id, username, avatar_url, revision)
       SELECT gen_random_uuid(), 'bench_reader_' || n, 'https://cdn.example.com/avatars/' || n || '.png', 0
         FROM generate_series(1, $1) AS n`,
      [COMMENTERS],
    );
    await client.query(
      `INSERT INTO content_items (id, content_type, author_id, title, cover_image_url, deleted, revision, created_at)
       VALUES ($1, 'recipe', $2, 'Bench recipe', NULL, false, 0, now())`,
      [recipeId, poster.id],
    );
    await client.query(
      `INSERT INTO comments (id, target_type, target_id, author_id, content, created_at)
       SELECT uuid_v7(), 'recipe', $1, u.id, 'Comment ' || n || ': lovely tones, less grain next time?',
              date_trunc('milliseconds', now()) - (($2 - n) * interval '1 second')
         FROM generate_series(1, $2) AS n
         JOIN (SELECT id, row_number() OVER (ORDER BY id) - 1 AS k FROM users WHERE username LIKE 'bench\\_reader\\_%') u
           ON u.k = n % $3`,
      [recipeId, COMMENTS, COMMENTERS],
    );
    await client.query('VACUUM ANALYZE comments');
  } finally {
    await client.end();
  }

  const path = `/api/recipes/${recipeId}/comments`;
  return [
    { name: 'GET /api/recipes/{id}/comments (10k comments, page 1)', service: 'comments', path },
    {
      name: 'POST /api/recipes/{id}/comments (1 mention)',
      service: 'comments',
      path,
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ content: `Lovely tones, @${friend.username}!` }),
    },
  ];
}
