/* eslint-disable max-lines -- one domain: posting, editing and deleting share the target, mention and block rules */
import {
  type Author,
  commentCreated,
  commentDeleted,
  commentUpdated,
  type CommentTargetType,
  createEvent,
  forbidden,
  type MentionKind,
  newId,
  notFound,
  type ListPosition,
  type ListRequest,
  type UserSnapshot,
} from '@recipes/contracts';
import { type Pool, type Queryable, withStatement, withTransaction } from '@recipes/db';
import type { UserDirectory } from '@recipes/directory';
import { enqueue } from '@recipes/outbox';
import { z } from 'zod';
import type { Blocks } from './blocks.js';
import { MAX_MENTIONED_USERS, mentionedNames, type SpendNotifications, withinCap } from './mentions.js';
import * as repository from './repository.js';
import type { CommentRecord, CommentTarget, CommentWithAuthor } from './repository.js';
import type { TargetOwner } from './targets.js';

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
  editedAt: string | null;
  author: Author;
}

const toAuthor = ({ id, username, avatarUrl }: Author): Author => ({ id, username, avatarUrl });

const uuid = z.uuid();
const isUuid = (value: string) => uuid.safeParse(value).success;

export interface CommentsDependencies {
  pool: Pool;
  users: UserDirectory;
  blocks: Blocks;
  targetOwner: TargetOwner;
}

/** The comments domain: comments on recipes, collections and posts, and the mentions they make. */
export function comments({ pool, users, blocks, targetOwner }: CommentsDependencies) {
  /** The target's owner; 404 when it does not exist (any more). */
  async function ownerOf(target: CommentTarget): Promise<string> {
    const owner = await targetOwner(target);
    if (owner === undefined) throw notFound(`${targetNames[target.type]} not found`);
    return owner;
  }

  /** The live comment, locked for the change; 404 when it is deleted, unknown, or on another target. */
  async function lockedComment(tx: Queryable, target: CommentTarget, commentId: string): Promise<CommentRecord> {
    // An id that is not a UUID names nothing.
    const record = isUuid(commentId) ? await repository.lockComment(tx, target, commentId) : undefined;
    if (!record) throw notFound('Comment not found');
    return record;
  }

  /** Brings the kind's mention store to `wanted`: its triggers announce each mention added and each taken out. */
  async function setMentions(tx: Queryable, target: CommentTarget, commentId: string, wanted: string[]): Promise<void> {
    const kind = mentionKinds[target.type];
    const current = await repository.mentionedUsers(tx, kind, commentId);
    await repository.deleteMentions(tx, kind, commentId, current.filter((id) => !wanted.includes(id)));
    await repository.insertMentions(tx, kind, commentId, wanted.filter((id) => !current.includes(id)));
  }

  /**
   * The ids of the users `content` mentions, in text order: those who exist, never the author, and within
   * the cap on the users one comment may ever mention: any the comment has mentioned before (`before`, none
   * for a new one), and others only while it would have mentioned ten at most in all (`withinCap`).
   */
  async function mentionedUserIds(content: string, authorId: string, before: ReadonlySet<string> = new Set()): Promise<string[]> {
    const names = mentionedNames(content);
    let ids: string[] = [];
    // Names are looked up a batch at a time, and only until ten users are mentioned.
    for (let start = 0; start < names.length && ids.length < MAX_MENTIONED_USERS; start += NAMES_PER_LOOKUP) {
      const batch = names.slice(start, start + NAMES_PER_LOOKUP);
      const known = await users.findByUsernames(batch);
      const found = await blocks.mentionable(authorId, batch.flatMap((name) => known.get(name)?.id ?? []).filter((id) => id !== authorId));
      ids = withinCap([...ids, ...found], before);
    }
    return ids;
  }

  return {
    /** A page of the target's comments, oldest first, by number or after a position, how many it has in all, and where the next page starts. */
    async list(target: CommentTarget, request: ListRequest): Promise<{ comments: Comment[]; total: number; next: ListPosition | null }> {
      await ownerOf(target);
      const { comments: records, total, next } = await repository.findCommentPage(pool, target, request);
      // Every author was in the directory when they commented, and the directory forgets no one: a look-up
      // is left only for a read model that lost a row, and costs nothing otherwise.
      const unknown = records.filter((record) => record.author === null).map((record) => record.authorId);
      const fetched = unknown.length === 0 ? new Map<string, UserSnapshot>() : await users.findByIds([...new Set(unknown)]);
      const withAuthor = ({ authorId, author, ...record }: CommentWithAuthor): Comment => {
        const known = author ?? fetched.get(authorId);
        if (!known) throw new Error(`author ${authorId} of comment ${record.id} is unknown`);
        return { ...record, author: toAuthor(known) };
      };
      return { comments: records.map(withAuthor), total, next };
    },

    /**
     * Stores the comment, a row per mentioned user in the target kind's mention store (whose trigger
     * writes each `comment.mention.created`), and `comment.created`, all in one statement: in the transaction
     * of a request with an `Idempotency-Key`, so that the comment commits with the response kept for it.
     * A comment that mentions someone first pays for it (`spend`), in a transaction with the statement.
     */
    async add(target: CommentTarget, authorId: string, content: string, correlationId: string, spend: SpendNotifications): Promise<Comment> {
      const author = await users.caller(authorId);
      await blocks.allowComment(await ownerOf(target), authorId, target.type);
      const mentioned = await mentionedUserIds(content, authorId);
      const id = newId();
      // `createdAt` is the stored row's: the statement writes it into the event.
      const data = { id, targetType: target.type, targetId: target.id, authorId, createdAt: new Date().toISOString() };
      const announcement = createEvent(commentCreated, data, { producer: PRODUCER, correlationId });
      const comment = { id, target, authorId, content, mentionKind: mentionKinds[target.type], mentionedUserIds: mentioned };
      const insert = (db: Queryable) => repository.insertComment(db, comment, announcement, correlationId);
      const record =
        mentioned.length === 0
          ? await withStatement(pool, insert)
          : await withTransaction(pool, async (tx) => {
              await spend(tx, authorId, mentioned.length);
              return insert(tx);
            });
      // Deleted since `ownerOf` looked (its deletion event came in between).
      if (!record) throw notFound(`${targetNames[target.type]} not found`);
      return withAuthorOf(record, author);
    },

    /**
     * The author's new text. The mentions follow it, with the same grammar and limits as a new comment's:
     * a user it newly mentions is notified, one it no longer mentions has that notification retracted
     * (both by the mention stores' triggers), and `comment.updated` tells what changed. Only a user the
     * comment never mentioned before is notified, so only they are paid for (`spend`) and count towards
     * the ten users a comment may ever mention (`withinCap`).
     */
    async edit(target: CommentTarget, commentId: string, callerId: string, content: string, correlationId: string, spend: SpendNotifications): Promise<Comment> {
      const caller = await users.caller(callerId);
      await blocks.allowComment(await ownerOf(target), callerId, target.type);
      // Read without a lock to know which names to look up; checked again under the comment's lock.
      const mentionedBefore = isUuid(commentId) ? await repository.everMentioned(pool, commentId) : new Set<string>();
      const found = await mentionedUserIds(content, callerId, mentionedBefore);
      const record = await withTransaction(pool, async (tx) => {
        const existing = await lockedComment(tx, target, commentId);
        if (existing.authorId !== callerId) throw forbidden('Only its author may edit a comment');
        const before = await repository.everMentioned(tx, commentId);
        const mentioned = withinCap(found, before);
        const newcomers = mentioned.filter((id) => !before.has(id));
        if (newcomers.length > 0) await spend(tx, callerId, newcomers.length);
        await repository.rememberMentioned(tx, commentId, newcomers);
        await repository.setCorrelationId(tx, correlationId);
        const edited = await repository.updateContent(tx, commentId, content);
        await setMentions(tx, target, commentId, mentioned);
        const data = { id: commentId, targetType: target.type, targetId: target.id, authorId: callerId, createdAt: edited.createdAt, editedAt: edited.editedAt! };
        await enqueue(tx, createEvent(commentUpdated, data, { producer: PRODUCER, correlationId }));
        return edited;
      });
      return withAuthorOf(record, caller);
    },

    /**
     * Deletes the comment, for its author or the owner of its target: it leaves its list and counts
     * (`comment.deleted`), and every notification of its mentions is retracted.
     */
    async remove(target: CommentTarget, commentId: string, callerId: string, correlationId: string): Promise<void> {
      await users.caller(callerId);
      const owner = await ownerOf(target);
      await withTransaction(pool, async (tx) => {
        const existing = await lockedComment(tx, target, commentId);
        if (existing.authorId !== callerId && owner !== callerId) throw forbidden('Only its author or the owner of what it is on may delete a comment');
        await repository.setCorrelationId(tx, correlationId);
        const deletedAt = await repository.markDeleted(tx, commentId);
        await setMentions(tx, target, commentId, []);
        const data = { id: commentId, targetType: target.type, targetId: target.id, authorId: existing.authorId, createdAt: existing.createdAt, deletedAt };
        await enqueue(tx, createEvent(commentDeleted, data, { producer: PRODUCER, correlationId }));
      });
    },
  };
}

function withAuthorOf({ id, content, createdAt, editedAt }: CommentRecord, author: UserSnapshot): Comment {
  return { id, content, createdAt, editedAt, author: toAuthor(author) };
}

export type Comments = ReturnType<typeof comments>;
