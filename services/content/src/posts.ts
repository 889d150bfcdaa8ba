import { type ContentSnapshot, forbidden, newId, notFound, postCreated, postDeleted } from '@recipes/contracts';
import { type Pool, withTransaction } from '@recipes/db';
import type { RelationDirectory, UserDirectory } from '@recipes/directory';
import { enqueue } from '@recipes/outbox';
import { contentEvent } from './events/content-event.js';
import * as repository from './repository/posts.js';
import type { NewPost, Post } from './repository/posts.js';
import { type SpendNotifications, tagEvents, taggedUsers } from './tagging.js';

export type { Post } from './repository/posts.js';

/** What an author publishes: the post, and the names of the users they tag in it. */
export interface PostDraft extends Omit<NewPost, 'id' | 'authorId'> {
  taggedUsernames: string[];
}

/** Posts: every change is stored together with the events that tell the other services. */
export function posts(pool: Pool, directory: UserDirectory, relations: RelationDirectory) {
  return {
    /** Each user it tags is notified, and paid for first (`spend`): past the author's budget, nothing is published. */
    async publish(
      callerId: string,
      { taggedUsernames, ...draft }: PostDraft,
      correlationId: string,
      spend: SpendNotifications,
    ): Promise<Post> {
      const author = await directory.caller(callerId);
      const tagged = await taggedUsers(directory, relations, author, taggedUsernames);
      return withTransaction(pool, async (tx) => {
        if (tagged.length > 0) await spend(tx, author.id, tagged.length);
        const id = newId();
        await repository.insertPost(tx, { id, authorId: author.id, ...draft });
        await repository.insertPostTags(
          tx,
          id,
          tagged.map((user) => user.id),
        );
        const snapshot = (await repository.findPostSnapshot(tx, id))!;
        await enqueue(
          tx,
          contentEvent(postCreated, snapshot, correlationId),
          ...tagEvents('post', snapshot, tagged, correlationId),
        );
        return (await repository.findPost(tx, id))!;
      });
    },

    async find(id: string): Promise<Post> {
      const post = await repository.findPost(pool, id);
      if (!post) throw notFound('Post not found');
      return post;
    },

    /** The posts of `ids` (distinct UUIDs), in their order; those `find` would answer 404 for are left out. */
    findMany: (ids: string[]): Promise<Post[]> => repository.findPosts(pool, ids),

    /** Soft, as for recipes. */
    async remove(id: string, callerId: string, correlationId: string): Promise<void> {
      await withTransaction(pool, async (tx) => {
        const post = await repository.lockLivePost(tx, id);
        if (!post) throw notFound('Post not found');
        if (post.authorId !== callerId) throw forbidden('Only its author can delete a post');
        await repository.markPostDeleted(tx, id);
        await enqueue(tx, contentEvent(postDeleted, (await repository.findPostSnapshot(tx, id))!, correlationId));
      });
    },

    /** What other services keep of a post; deleted ones too, marked so. */
    async snapshot(id: string): Promise<ContentSnapshot> {
      const snapshot = await repository.findPostSnapshot(pool, id);
      if (!snapshot) throw notFound('Post not found');
      return snapshot;
    },
  };
}

export type Posts = ReturnType<typeof posts>;
