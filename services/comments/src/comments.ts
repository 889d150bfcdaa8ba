import {
  type Author,
  commentCreated,
  type CommentTargetType,
  createEvent,
  type MentionKind,
  newId,
  pageOffset,
  type PageQuery,
  type UserSnapshot,
} from '@recipes/contracts';
import { type Pool, withTransaction } from '@recipes/db';
import type { UserDirectory } from '@recipes/directory';
import { notFound, unauthorized } from '@recipes/http';
import { enqueue } from '@recipes/outbox';
import { MAX_MENTIONED_USERS, mentionedNames } from './mentions.js';
import * as repository from './repository.js';
import type { CommentRecord, CommentTarget } from './repository.js';
import type { TargetExists } from './targets.js';

const PRODUCER = 'comments';

/** The users service resolves at most this many names per look-up. */
const NAMES_PER_LOOKUP = 50;

const mentionKinds: Record<CommentTargetType, MentionKind> = {
  recipe: 'recipe_comment',
  collection: 'collection_comment',
  post: 'post_comment',
};

const targetNames: Record<CommentTargetType, string> = { recipe: 'Recipe', collection: 'Collection', post: 'Post' };

export interface Comment {
  id: string;
  content: string;
  createdAt: string;
  author: Author;
}

const toAuthor = ({ id, username, avatarUrl }: UserSnapshot): Author => ({ id, username, avatarUrl });

export interface CommentsDependencies {
  pool: Pool;
  users: UserDirectory;
  targetExists: TargetExists;
}

/** The comments domain: comments on recipes, collections and posts, and the mentions they make. */
export function comments({ pool, users, targetExists }: CommentsDependencies) {
  async function mustExist(target: CommentTarget): Promise<void> {
    if (!(await targetExists(target))) throw notFound(`${targetNames[target.type]} not found`);
  }

  /** The ids of the users `content` mentions: those who exist, never the author, the first ten. */
  async function mentionedUserIds(content: string, authorId: string): Promise<string[]> {
    const names = mentionedNames(content);
    const ids: string[] = [];
    // Names are looked up a batch at a time, and only until ten users are found.
    for (let start = 0; start < names.length && ids.length < MAX_MENTIONED_USERS; start += NAMES_PER_LOOKUP) {
      const batch = names.slice(start, start + NAMES_PER_LOOKUP);
      const known = await users.findByUsernames(batch);
      for (const name of batch) {
        const user = known.get(name);
        if (user && user.id !== authorId) ids.push(user.id);
      }
    }
    return ids.slice(0, MAX_MENTIONED_USERS);
  }

  return {
    /** A page of the target's comments, oldest first, and how many it has in all. */
    async list(target: CommentTarget, page: PageQuery): Promise<{ comments: Comment[]; total: number }> {
      await mustExist(target);
      const [records, total] = await Promise.all([
        repository.findComments(pool, target, { limit: page.limit, offset: pageOffset(page) }),
        repository.countComments(pool, target),
      ]);
      const authors = await users.findByIds([...new Set(records.map((record) => record.authorId))]);
      const withAuthor = ({ authorId, ...record }: CommentRecord): Comment => {
        // Every author was in the directory when they commented, and the directory forgets no one.
        const author = authors.get(authorId);
        if (!author) throw new Error(`author ${authorId} of comment ${record.id} is unknown`);
        return { ...record, author: toAuthor(author) };
      };
      return { comments: records.map(withAuthor), total };
    },

    /**
     * Stores the comment, a row per mentioned user in the target kind's mention store (whose trigger
     * writes each `comment.mention.created`), and `comment.created`, all in one transaction.
     */
    async add(target: CommentTarget, authorId: string, content: string, correlationId: string): Promise<Comment> {
      const author = await users.findById(authorId);
      // A well-signed token for an account that does not exist proves nothing.
      if (!author) throw unauthorized('The token is invalid or expired');
      await mustExist(target);
      const mentioned = await mentionedUserIds(content, authorId);

      const record = await withTransaction(pool, async (tx) => {
        await repository.setCorrelationId(tx, correlationId);
        const comment = await repository.insertComment(tx, { id: newId(), target, authorId, content });
        await repository.insertMentions(tx, mentionKinds[target.type], comment.id, mentioned);
        const data = { id: comment.id, targetType: target.type, targetId: target.id, authorId, createdAt: comment.createdAt };
        await enqueue(tx, createEvent(commentCreated, data, { producer: PRODUCER, correlationId }));
        return comment;
      });
      return { id: record.id, content: record.content, createdAt: record.createdAt, author: toAuthor(author) };
    },
  };
}

export type Comments = ReturnType<typeof comments>;
