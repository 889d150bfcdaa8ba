import { postDeleted } from '@recipes/contracts';
import type { ContentDirectory } from '@recipes/directory';
import { type EventHandler, on } from '@recipes/messaging';
import type { DeletedTargets } from '../../deleted-targets.js';

/** A deleted post takes no more comments (content directory), and loses those it has. */
export const postDeletedHandler = (content: ContentDirectory, deleted: DeletedTargets): EventHandler =>
  on(postDeleted, async (post, event) => {
    await content.remember('post', post, event);
    await deleted.removeCommentsOn({ type: 'post', id: post.id }, event.correlationId);
  });
