import {
  contentUserErased,
  postCreated,
  postDeleted,
  recipeCreated,
  recipeDeleted,
  recipeUpdated,
  userTagged,
} from '@recipes/contracts';
import type { PublishedEvent } from '@recipes/runtime';

/** Every event this service writes to its outbox, and where. */
export const published: PublishedEvent[] = [
  { event: recipeCreated, from: '`publish` in src/recipes.ts' },
  { event: recipeUpdated, from: 'nowhere yet: no endpoint changes a recipe (catalogued ahead, docs/api.md)' },
  { event: recipeDeleted, from: '`remove` in src/recipes.ts' },
  { event: postCreated, from: '`publish` in src/posts.ts' },
  { event: postDeleted, from: '`remove` in src/posts.ts' },
  { event: userTagged, from: '`tagEvents` in src/tagging.ts, by `publish` in src/recipes.ts and src/posts.ts' },
  { event: contentUserErased, from: '`eraseUser` in @recipes/runtime, once src/erasure.ts has erased a deleted user' },
];
