// Recipes for the listing benchmark, written straight into the content schema (through the API, 100,000
// recipes would take minutes): authors in content's read model of users, one image per recipe, counts,
// and the viewer's favorites and reposts on some of the measured author's recipes.
import pg from 'pg';

/** Seeds `authors` × `recipesPerAuthor` recipes; returns the id of the author whose list is measured. */
export async function seedRecipes(databaseUrl, { viewerId, authors = 1_000, recipesPerAuthor = 100 }) {
  const client = new pg.Client({ connectionString: databaseUrl, options: '-c search_path=content' });
  await client.connect();
  try {
    await client.query(
      `INSERT INTO users (id, username, avatar_url, revision)
       SELECT gen_random_uuid(), 'bench_author_' || n, 'https://cdn.example.com/avatars/' || n || '.png', 0
         FROM generate_series(1, $1) AS n`,
      [authors],
    );
    await client.query(
      `INSERT INTO recipes (id, author_id, title, description, camera_model, film_simulation,
                            favorite_count, repost_count, comment_count, created_at)
       SELECT gen_random_uuid(), u.id, 'Recipe ' || n, 'Grain -1, highlights +1, shadows -2', 'X-T5', 'Classic Chrome',
              n % 40, n % 7, n % 13, now() - n * interval '1 minute'
         FROM users u CROSS JOIN generate_series(1, $1) AS n
        WHERE u.username LIKE 'bench\\_author\\_%'`,
      [recipesPerAuthor],
    );
    await client.query(`INSERT INTO recipe_images (recipe_id, position, url) SELECT id, 0, 'https://cdn.example.com/' || id || '.jpg' FROM recipes`);
    const { rows } = await client.query(`SELECT id FROM users WHERE username = 'bench_author_1'`);
    const author = rows[0].id;
    for (const table of ['recipe_favorites', 'recipe_reposts']) {
      await client.query(
        `INSERT INTO ${table} (recipe_id, user_id) SELECT id, $2 FROM recipes WHERE author_id = $1 AND title ~ '[02468]$'`,
        [author, viewerId],
      );
    }
    await client.query('VACUUM ANALYZE');
    return author;
  } finally {
    await client.end();
  }
}
