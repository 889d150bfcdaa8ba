import { RelationDirectory, UserDirectory } from '@recipes/directory';
import { Idempotency } from '@recipes/idempotency';
import { type PartsContext } from '@recipes/runtime';
import { commentCounts } from './comment-counts.js';
import { type ContentConfig } from './config.js';
import { dataExport } from './data-export.js';
import { erasureSteps } from './erasure.js';
import { posts } from './posts.js';
import { recipes } from './recipes.js';

/**
 * Recipes and posts, what content knows of users and of who blocks whom (libs/directory), and recipes' comment counts.
 */
export function parts({ config, pool }: PartsContext<ContentConfig>) {
  const users = new UserDirectory({ pool, usersUrl: config.USERS_INTERNAL_URL });
  const relations = new RelationDirectory(pool);
  const userRecipes = recipes(pool, users, relations);
  const userPosts = posts(pool, users, relations);
  return {
    users,
    relations,
    recipes: userRecipes,
    posts: userPosts,
    erasure: { pool, service: 'content' as const, steps: erasureSteps(pool, userRecipes, userPosts) },
    commentCounts: commentCounts(pool),
    idempotency: new Idempotency(pool),
    dataExport: dataExport(pool),
  };
}

export type ContentParts = ReturnType<typeof parts>;
