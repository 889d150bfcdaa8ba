import { collectionCreated, collectionDeleted } from './collections.js';
import { commentCreated, commentMentionCreated } from './comments.js';
import { postCreated, postDeleted, recipeCreated, recipeDeleted, recipeUpdated, userTagged } from './content.js';
import type { EventDefinition } from './envelope.js';
import { userCreated, userUpdated } from './users.js';

export * from './collections.js';
export * from './comments.js';
export * from './content.js';
export * from './envelope.js';
export * from './users.js';

/** Every event in the system. A service may only publish or consume what is listed here. */
export const eventCatalogue: readonly EventDefinition[] = [
  userCreated,
  userUpdated,
  recipeCreated,
  recipeUpdated,
  recipeDeleted,
  postCreated,
  postDeleted,
  userTagged,
  commentCreated,
  commentMentionCreated,
  collectionCreated,
  collectionDeleted,
];
