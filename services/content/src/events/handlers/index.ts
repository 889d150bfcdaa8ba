import type { EventHandler } from '@recipes/messaging';
import type { ContentParts } from '../../parts.js';
import { commentCreatedHandler } from './comment-created.js';
import { commentDeletedHandler } from './comment-deleted.js';
import { userBlockedHandler, userUnblockedHandler } from './user-blocked.js';
import { userCreatedHandler } from './user-created.js';
import { userUpdatedHandler } from './user-updated.js';

/** Every event this service consumes: the users keep its user directories current, the comments its recipes' counts. */
export function handlers({ users, relations, commentCounts }: ContentParts): EventHandler[] {
  return [
    userCreatedHandler(users),
    userUpdatedHandler(users),
    userBlockedHandler(relations),
    userUnblockedHandler(relations),
    commentCreatedHandler(commentCounts),
    commentDeletedHandler(commentCounts),
  ];
}
