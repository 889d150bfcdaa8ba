import { RelationDirectory, UserDirectory } from '@recipes/directory';
import { Idempotency } from '@recipes/idempotency';
import { type PartsContext } from '@recipes/runtime';
import { commentCounts } from './comment-counts.js';
import { type ContentConfig } from './config.js';
import { posts } from './posts.js';
import { recipes } from './recipes.js';

/** Recipes and posts, what content knows of users and of who blocks whom (libs/directory), and recipes' comment counts. */
export function parts({ config, pool }: PartsContext<ContentConfig>) {
  const users = new UserDirectory({ pool, usersUrl: config.USERS_INTERNAL_URL });
  const relations = new RelationDirectory(pool);
  return {
    users,
    relations,
    recipes: recipes(pool, users, relations),
    posts: posts(pool, users, relations),
    commentCounts: commentCounts(pool),
    idempotency: new Idempotency(pool),
  };
}

export type ContentParts = ReturnType<typeof parts>;
