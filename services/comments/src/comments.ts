/* eslint-disable max-lines -- one domain: posting, editing and deleting share the target, mention and block rules */
import {
  type Author,
  commentCreated,
  type CommentTargetType,
  commentUpdated,
  createEvent,
  forbidden,
  isUuid,
  type ListPosition,
  type ListRequest,
  newId,
  notFound,
  type UserSnapshot,
} from '@recipes/contracts';
import { type Pool, type Queryable, spendBudget, withStatement, withTransaction } from '@recipes/db';
import type { UserDirectory } from '@recipes/directory';
import { enqueue } from '@recipes/outbox';
import { blockedFromCommenting, type Blocks } from './blocks.js';
import { insertMentions, mentionEvents, type MentioningComment } from './mention-events.js';
import { mentionable, mentionedNames, type Named, type NotificationPayer, withinCap } from './mentions.js';
import * as repository from './repository.js';
import { mentionKindOf } from './repository.js';
import { findPostingContext, insertComment, type KnownTarget, type ParentComment } from './posting.js';
import type { CommentFilter, CommentRecord, CommentTarget, CommentWithAuthor } from './repository.js';
import { deleteInThread } from './thread-deletion.js';
import { lockInThread } from './thread-repository.js';
import type { TargetOwner } from './targets.js';

const PRODUCER = 'comments';

/** The users service resolves at most this many names per look-up. */
const NAMES_PER_LOOKUP = 50;

const targetNames: Record<CommentTargetType, string> = { recipe: 'Recipe', collection: 'Collection', post: 'Post' };

export interface Comment {
  id: string;
  content: string;
  createdAt: string;
  editedAt: string | null;
  /** What it is on. */
  targetType: CommentTargetType;
  targetId: string;
  /** The top-level comment it replies to; null for a top-level comment. */
  parentId: string | null;
  /** Its replies; 0 for a reply. */
  replyCount: number;
  author: Author;
}

const toAuthor = ({ id, username, avatarUrl }: Author): Author => ({ id, username, avatarUrl });

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

  /**
   * The owner of the target `callerId` comments on: 404 when it does not exist (any more), 403 when they
   * block the caller. From what the read models hold (`known`), or else the directories. `alsoExists`
   * checks what else must exist (404) before the block is (403), as docs/api.md §1 orders them.
   */
  async function ownerAllowing(
    target: CommentTarget,
    callerId: string,
    known?: KnownTarget,
    alsoExists: () => void = () => {},
  ): Promise<string> {
    if (!known) {
      const owner = await ownerOf(target);
      alsoExists();
      await blocks.allowComment(owner, callerId, target.type);
      return owner;
    }
    if (known.deleted) throw notFound(`${targetNames[target.type]} not found`);
    alsoExists();
    if (known.ownerBlocksCaller) throw blockedFromCommenting(target.type);
    return known.ownerId;
  }

  /** The live comment, locked for the change; 404 when it is deleted, unknown, or on another target. */
  async function lockedComment(tx: Queryable, target: CommentTarget, commentId: string): Promise<CommentRecord> {
    // An id that is not a UUID names nothing.
    const record = isUuid(commentId) ? await repository.lockComment(tx, target, commentId) : undefined;
    if (!record) throw notFound('Comment not found');
    return record;
  }

  /**
   * Brings the comment's mention store to `wanted`: each mention added is stored with its event
   * (`mentionEvents`), each taken out is announced by the store's trigger.
   */
  async function setMentions(
    tx: Queryable,
    comment: MentioningComment,
    wanted: string[],
    correlationId: string,
  ): Promise<void> {
    const current = await repository.mentionedUsers(tx, comment.mentionKind, comment.id);
    await repository.deleteMentions(
      tx,
      comment.mentionKind,
      comment.id,
      current.filter((id) => !wanted.includes(id)),
    );
    const added = wanted.filter((id) => !current.includes(id));
    await insertMentions(tx, comment.mentionKind, mentionEvents(comment, added, correlationId));
  }

  /**
   * The ids of the users `names` mention (`mentionable`): those who exist, never the author nor one who
   * blocks them, and within the cap on the users one comment may ever mention: any the comment has
   * mentioned before (`before`, none for a new one), and others only while it would have mentioned ten at
   * most in all. Names `known` (from the read models) are taken as they are; the others are asked of the
   * directory a batch at a time, and only while they could still be among the first ten.
   */
  async function mentionedUserIds(
    names: string[],
    authorId: string,
    before: ReadonlySet<string> = new Set(),
    known: ReadonlyMap<string, Named> = new Map(),
  ): Promise<string[]> {
    const named = new Map(known);
    for (;;) {
      const { ids, unknown } = mentionable(names, named, authorId, before);
      if (unknown.length === 0) return ids;
      const batch = unknown.slice(0, NAMES_PER_LOOKUP);
      const found = await users.findByUsernames(batch);
      const blockers = await blocks.blockersOf(
        authorId,
        [...found.values()].map((user) => user.id),
      );
      for (const name of batch) {
        const user = found.get(name);
        named.set(name, user ? { id: user.id, blocksAuthor: blockers.has(user.id) } : null);
      }
    }
  }

  /**
   * The comments with their authors. Every author was in the directory when they commented, and the directory
   * forgets no one: a look-up is left only for a read model that lost a row, and costs nothing otherwise.
   */
  async function authored(records: CommentWithAuthor[]): Promise<Comment[]> {
    const unknown = records.filter((record) => record.author === null).map((record) => record.authorId);
    const fetched =
      unknown.length === 0 ? new Map<string, UserSnapshot>() : await users.findByIds([...new Set(unknown)]);
    const withAuthor = ({ authorId, author, ...record }: CommentWithAuthor): Comment => {
      const known = author ?? fetched.get(authorId);
      if (!known) throw new Error(`author ${authorId} of comment ${record.id} is unknown`);
      return { ...record, author: toAuthor(known) };
    };
    return records.map(withAuthor);
  }

  /** The page with each comment's author (`authored`). */
  async function withAuthors({
    comments: records,
    total,
    next,
  }: {
    comments: CommentWithAuthor[];
    total: number;
    next: ListPosition | null;
  }): Promise<CommentPage> {
    return { comments: await authored(records), total, next };
  }

  return {
    /**
     * A page of the target's comments (`filter`), oldest first, by number or after a position, how many it has in all,
     * and where the next page starts.
     */
    async list(target: CommentTarget, filter: CommentFilter, request: ListRequest): Promise<CommentPage> {
      await ownerOf(target);
      return withAuthors(await repository.findCommentPage(pool, target, filter, request));
    },

    /**
     * The live comment `commentId`, as its target's list shows it; 404 when it is deleted, unknown, not a UUID, or on
     * a target that is gone (whose list is a 404: its comments are removed a moment after it, `removeCommentsOn`).
     * Nothing else hides a comment from a reader: a block keeps the blocked from commenting, not from reading.
     */
    async find(commentId: string): Promise<Comment> {
      const record = isUuid(commentId) ? await repository.findListedComment(pool, commentId) : undefined;
      if (!record || (await targetOwner({ type: record.targetType, id: record.targetId })) === undefined)
        throw notFound('Comment not found');
      const [comment] = await authored([record]);
      return comment!;
    },

    /**
     * A page of the replies to the live comment `commentId`, oldest first, as `list`; 404 when it is deleted or
     * unknown.
     */
    async replies(commentId: string, request: ListRequest): Promise<CommentPage> {
      if (!isUuid(commentId) || !(await repository.findComment(pool, commentId))) throw notFound('Comment not found');
      return withAuthors(await repository.findReplyPage(pool, commentId, request));
    },

    /**
     * Stores the comment, a row per mentioned user in the target kind's mention store with its
     * `comment.mention.created` (`mentionEvents`, written beside the row by `storingMentions`), and
     * `comment.created`, all in one statement that also pays
     * for the mentions (`payer`): in the transaction of a request with an `Idempotency-Key`, so that the
     * comment commits with the response kept for it. What it needs to know first (the author, the target
     * and its owner's block, the names) is read in one statement from the read models, and only what they
     * lack is asked of the directories.
     */
    async add(
      target: CommentTarget,
      authorId: string,
      content: string,
      correlationId: string,
      payer: NotificationPayer,
      parentId?: string,
    ): Promise<Comment> {
      const names = mentionedNames(content);
      // An id that is not a UUID names nothing: the directory says so (404), once the author is known.
      const targetId = isUuid(target.id) ? target.id : null;
      const known = await findPostingContext(
        pool,
        target.type,
        targetId,
        authorId,
        names,
        parentId !== undefined && isUuid(parentId) ? parentId : null,
      );
      const author = known.author ?? (await users.caller(authorId));
      const ownerId = await ownerAllowing(target, authorId, known.target, () => {
        if (parentId !== undefined && !known.parent) throw notFound('Comment not found');
      });
      const thread = known.parent && threadOf(known.parent);
      const mentioned = await mentionedUserIds(names, authorId, new Set(), known.named);
      const id = newId();
      // `createdAt` is the stored row's: the statement writes it into the event.
      const data = {
        id,
        targetType: target.type,
        targetId: target.id,
        authorId,
        createdAt: new Date().toISOString(),
        parentId: thread?.topLevelId ?? null,
        targetOwnerId: ownerId,
        repliedToAuthorId: known.parent?.authorId ?? null,
        mentionedUserIds: mentioned,
      };
      const mentionKind = mentionKindOf[target.type];
      const events = {
        created: createEvent(commentCreated, data, { producer: PRODUCER, correlationId }),
        mentions: mentionEvents({ id, authorId, target, mentionKind }, mentioned, correlationId),
      };
      const comment = { id, target, authorId, content, mentionKind, mentionedUserIds: mentioned, thread, events };
      const payment =
        mentioned.length === 0 ? undefined : { budget: payer.budget, key: authorId, amount: mentioned.length };
      const { record, targetLive, placed, spending } = await withStatement(pool, (db) =>
        insertComment(db, comment, payment),
      );
      // Deleted since the read (its deletion event came in between, or the thread was deleted).
      if (!targetLive) throw notFound(`${targetNames[target.type]} not found`);
      if (!placed) throw notFound('Comment not found');
      if (spending) payer.answer(spending);
      return withAuthorOf(record!, target, author);
    },

    /**
     * The author's new text. The mentions follow it, with the same grammar and limits as a new comment's:
     * a user it newly mentions is notified (`comment.mention.created`, written with the new mention row),
     * one it no longer mentions has that notification retracted (`comment.mention.deleted`, by the mention
     * store's trigger), and `comment.updated` tells what changed. Only a user the
     * comment never mentioned before is notified, so only they are paid for (`payer`) and count towards
     * the ten users a comment may ever mention (`withinCap`).
     */
    async edit(
      target: CommentTarget,
      commentId: string,
      callerId: string,
      content: string,
      correlationId: string,
      payer: NotificationPayer,
    ): Promise<Comment> {
      const caller = await users.caller(callerId);
      await ownerAllowing(target, callerId);
      // Read without a lock to know which names to look up; checked again under the comment's lock.
      const mentionedBefore = isUuid(commentId) ? await repository.everMentioned(pool, commentId) : new Set<string>();
      const found = await mentionedUserIds(mentionedNames(content), callerId, mentionedBefore);
      const record = await withTransaction(pool, async (tx) => {
        const existing = await lockedComment(tx, target, commentId);
        if (existing.authorId !== callerId) throw forbidden('Only its author may edit a comment');
        const before = await repository.everMentioned(tx, commentId);
        const mentioned = withinCap(found, before);
        const newcomers = mentioned.filter((id) => !before.has(id));
        if (newcomers.length > 0) payer.answer(await spendBudget(tx, payer.budget, callerId, newcomers.length));
        await repository.rememberMentioned(tx, commentId, newcomers);
        await repository.setCorrelationId(tx, correlationId);
        const edited = await repository.updateContent(tx, commentId, content);
        const mentionKind = mentionKindOf[target.type];
        await setMentions(tx, { id: commentId, authorId: callerId, target, mentionKind }, mentioned, correlationId);
        const data = {
          id: commentId,
          targetType: target.type,
          targetId: target.id,
          authorId: callerId,
          createdAt: edited.createdAt,
          editedAt: edited.editedAt!,
        };
        await enqueue(tx, createEvent(commentUpdated, data, { producer: PRODUCER, correlationId }));
        return edited;
      });
      return withAuthorOf(record, target, caller);
    },

    /**
     * Deletes the comment, for its author or the owner of its target: it leaves its list and counts
     * (`comment.deleted`), and every notification of its mentions is retracted. A top-level comment takes
     * its replies with it (docs/api.md §11.4), each deleted as if by itself; a reply leaves its top-level
     * comment's count.
     */
    async remove(target: CommentTarget, commentId: string, callerId: string, correlationId: string): Promise<void> {
      await users.caller(callerId);
      const owner = await ownerOf(target);
      await withTransaction(pool, async (tx) => {
        // An id that is not a UUID names nothing.
        const existing = isUuid(commentId) ? await lockInThread(tx, target, commentId) : undefined;
        if (!existing) throw notFound('Comment not found');
        if (existing.authorId !== callerId && owner !== callerId)
          throw forbidden('Only its author or the owner of what it is on may delete a comment');
        await repository.setCorrelationId(tx, correlationId);
        await deleteInThread(tx, target, existing, correlationId);
      });
    },
  };
}

function withAuthorOf(
  { id, content, createdAt, editedAt, parentId, replyCount }: CommentRecord,
  target: CommentTarget,
  author: UserSnapshot,
): Comment {
  // As PostgreSQL writes a uuid, whatever case the path spelled it in.
  const on = { targetType: target.type, targetId: target.id.toLowerCase() };
  return { id, content, createdAt, editedAt, ...on, parentId, replyCount, author: toAuthor(author) };
}

/** A page of comments, how many the listing holds, and where the next page starts. */
export type CommentPage = { comments: Comment[]; total: number; next: ListPosition | null };

/** Where a reply to `parent` goes: under its top-level comment, one level deep (docs/api.md §11.4). */
const threadOf = (parent: ParentComment) => ({ repliedToId: parent.id, topLevelId: parent.parentId ?? parent.id });

export type Comments = ReturnType<typeof comments>;
