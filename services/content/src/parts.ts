import { UserDirectory } from '@recipes/directory';
import { Idempotency } from '@recipes/idempotency';
import { type PartsContext } from '@recipes/runtime';
import { commentCounts } from './comment-counts.js';
import { type ContentConfig } from './config.js';
import { posts } from './posts.js';
import { recipes } from './recipes.js';

/** Recipes and posts, what content knows of users (libs/directory), and recipes' comment counts. */
export function parts({ config, pool }: PartsContext<ContentConfig>) {
  const users = new UserDirectory({ pool, usersUrl: config.USERS_INTERNAL_URL });
  return {
    users,
    recipes: recipes(pool, users),
    posts: posts(pool, users),
    commentCounts: commentCounts(pool),
    idempotency: new Idempotency(pool),
  };
}

export type ContentParts = ReturnType<typeof parts>;
