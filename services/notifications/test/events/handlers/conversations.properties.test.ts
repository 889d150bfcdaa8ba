import fc from 'fast-check';
import {
  commentCreated,
  commentDeleted,
  commentMentionCreated,
  commentMentionDeleted,
  type CommentTargetType,
  createEvent,
  type EventEnvelope,
  newId,
  userBlocked,
  userMuted,
  type UserRelation,
  userUnblocked,
  userUnmuted,
} from '@recipes/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type NotificationsHarness, notificationsHarness } from '../../support.js';

/**
 * Conversations in any interleaving (docs/api.md §11.4): four users comment, reply, edit, delete, block and
 * mute one another on three targets, and the comments service's events for each step come in any order
 * within the step, some twice. Whatever happened, what each user has is what the contract says: one
 * notification per user per comment, a mention before a reply before a comment on their content, never
 * one from themself, none through a mute or a block, and retractions exact (a deleted comment, a mention
 * taken out, a block), with the counts agreeing.
 */
let harness: NotificationsHarness;
beforeAll(async () => (harness = await notificationsHarness()));
afterAll(() => harness.close());

const USERS = 4;
const mentionTypes = {
  recipe: 'mention_recipe_comment',
  post: 'mention_post_comment',
  collection: 'mention_collection_comment',
} as const;
const commentTypes = { recipe: 'comment_recipe', post: 'comment_post', collection: 'comment_collection' } as const;
const kinds = { recipe: 'recipe_comment', post: 'post_comment', collection: 'collection_comment' } as const;

type Action =
  | { do: 'comment'; author: number; target: number; parent: number | null; mentions: number[] }
  | { do: 'edit'; comment: number; mentions: number[] }
  | { do: 'delete'; comment: number }
  | { do: 'relation'; user: number; other: number; kind: 'mute' | 'block'; on: boolean };

const user = fc.nat({ max: USERS - 1 });
const action: fc.Arbitrary<Action> = fc.oneof(
  {
    arbitrary: fc.record({
      do: fc.constant('comment' as const),
      author: user,
      target: fc.nat({ max: 2 }),
      parent: fc.option(fc.nat({ max: 3 })),
      mentions: fc.uniqueArray(user, { maxLength: 3 }),
    }),
    weight: 5,
  },
  {
    arbitrary: fc.record({
      do: fc.constant('edit' as const),
      comment: fc.nat({ max: 3 }),
      mentions: fc.uniqueArray(user, { maxLength: 3 }),
    }),
    weight: 2,
  },
  { arbitrary: fc.record({ do: fc.constant('delete' as const), comment: fc.nat({ max: 3 }) }), weight: 1 },
  {
    arbitrary: fc.record({
      do: fc.constant('relation' as const),
      user,
      other: user,
      kind: fc.constantFrom('mute' as const, 'block' as const),
      on: fc.boolean(),
    }),
    weight: 2,
  },
);

interface ModelComment {
  id: string;
  author: number;
  target: number;
  parentId: string | null;
  mentioned: Set<number>;
  deleted: boolean;
}

/**
 * What the comments service and the users service would have said of one run, and what the contract then leaves each
 * user.
 */
class Conversation {
  readonly ids = Array.from({ length: USERS }, () => newId());
  readonly targets: { type: CommentTargetType; id: string; owner: number }[] = [
    { type: 'recipe', id: newId(), owner: 1 },
    { type: 'post', id: newId(), owner: 2 },
    { type: 'collection', id: newId(), owner: 0 },
  ];
  readonly comments: ModelComment[] = [];
  readonly relations = new Map<string, UserRelation>();
  /**
   * By `${user}:${comment id}`: whether a row exists (a notification or a tombstone), its type, and whether it shows.
   */
  readonly rows = new Map<string, { type: string; live: boolean; actor: number }>();
  private clock = Date.now() - 3_600_000;

  private at(): string {
    this.clock += 1_000;
    return new Date(this.clock).toISOString();
  }

  private relation(user: number, other: number): UserRelation {
    const key = `${user}:${other}`;
    return (
      this.relations.get(key) ?? {
        userId: this.ids[user]!,
        targetId: this.ids[other]!,
        muted: false,
        blocked: false,
        lastUnblockedAt: null,
        revision: 0,
        changedAt: this.at(),
      }
    );
  }

  private notify(user: number, comment: ModelComment, type: string): void {
    const key = `${user}:${comment.id}`;
    if (this.rows.has(key)) return;
    const { muted, blocked } = this.relation(user, comment.author);
    if (muted || blocked) return;
    this.rows.set(key, { type, live: true, actor: comment.author });
  }

  private takeMentionBack(user: number, comment: ModelComment): void {
    const row = this.rows.get(`${user}:${comment.id}`);
    if (!row) this.rows.set(`${user}:${comment.id}`, { type: 'tombstone', live: false, actor: comment.author });
    else if (row.type.startsWith('mention_')) row.live = false;
  }

  /** The events of `step`, each group in the order the comments service writes them; applies the step to the model. */
  apply(step: Action): EventEnvelope[] {
    const context = { producer: 'comments', correlationId: 'conversation' };
    if (step.do === 'relation') {
      if (step.user === step.other) return [];
      const before = this.relation(step.user, step.other);
      const field = step.kind === 'mute' ? 'muted' : 'blocked';
      if (before[field] === step.on) return [];
      const changedAt = this.at();
      const after = {
        ...before,
        [field]: step.on,
        revision: before.revision + 1,
        changedAt,
        ...(step.kind === 'block' && !step.on ? { lastUnblockedAt: changedAt } : {}),
      };
      this.relations.set(`${step.user}:${step.other}`, after);
      if (step.kind === 'block' && step.on) {
        for (const [key, row] of this.rows)
          if (key.startsWith(`${step.user}:`) && row.actor === step.other) row.live = false;
      }
      const definition =
        step.kind === 'mute' ? (step.on ? userMuted : userUnmuted) : step.on ? userBlocked : userUnblocked;
      return [createEvent(definition as typeof userMuted, after, { producer: 'users', correlationId: 'conversation' })];
    }
    if (step.do === 'comment') {
      const target = this.targets[step.target]!;
      const parent = step.parent === null ? undefined : this.comments[step.parent];
      // The comments service refuses a reply to what is gone or elsewhere (404), and a comment where its owner blocks
      // the author (403).
      if (step.parent !== null && (!parent || parent.deleted || parent.target !== step.target)) return [];
      if (this.relation(target.owner, step.author).blocked) return [];
      // Nor does it store a mention of a user who blocks the author.
      const mentions = step.mentions.filter(
        (user) => user !== step.author && !this.relation(user, step.author).blocked,
      );
      const comment: ModelComment = {
        id: newId(),
        author: step.author,
        target: step.target,
        parentId: parent ? (parent.parentId ?? parent.id) : null,
        mentioned: new Set(mentions),
        deleted: false,
      };
      this.comments.push(comment);
      const createdAt = this.at();
      for (const user of mentions) this.notify(user, comment, mentionTypes[target.type]);
      const repliedTo = parent?.author;
      if (repliedTo !== undefined && repliedTo !== step.author && !comment.mentioned.has(repliedTo))
        this.notify(repliedTo, comment, 'reply_comment');
      if (target.owner !== step.author && !comment.mentioned.has(target.owner) && target.owner !== repliedTo)
        this.notify(target.owner, comment, commentTypes[target.type]);
      return [
        createEvent(
          commentCreated,
          {
            id: comment.id,
            targetType: target.type,
            targetId: target.id,
            authorId: this.ids[step.author]!,
            createdAt,
            parentId: comment.parentId,
            targetOwnerId: this.ids[target.owner]!,
            repliedToAuthorId: repliedTo === undefined ? null : this.ids[repliedTo]!,
            mentionedUserIds: mentions.map((user) => this.ids[user]!),
          },
          context,
        ),
        ...mentions.map((user) => this.mentionEvent(comment, user, createdAt, 'created')),
      ];
    }
    const comment = this.comments[step.comment];
    if (!comment || comment.deleted) return [];
    if (step.do === 'edit') {
      const wanted = new Set(
        step.mentions.filter((user) => user !== comment.author && !this.relation(user, comment.author).blocked),
      );
      const at = this.at();
      const events: EventEnvelope[] = [];
      for (const user of comment.mentioned) {
        if (wanted.has(user)) continue;
        this.takeMentionBack(user, comment);
        events.push(this.mentionEvent(comment, user, at, 'deleted'));
      }
      for (const user of wanted) {
        if (comment.mentioned.has(user)) continue;
        this.notify(user, comment, mentionTypes[this.targets[comment.target]!.type]);
        events.push(this.mentionEvent(comment, user, at, 'created'));
      }
      comment.mentioned = wanted;
      return events;
    }
    const thread = [
      comment,
      ...(comment.parentId === null
        ? this.comments.filter((reply) => reply.parentId === comment.id && !reply.deleted)
        : []),
    ];
    const at = this.at();
    return thread.flatMap((gone) => {
      gone.deleted = true;
      const events = [...gone.mentioned].map(
        (user) => (this.takeMentionBack(user, gone), this.mentionEvent(gone, user, at, 'deleted')),
      );
      for (const [key, row] of this.rows) if (key.endsWith(`:${gone.id}`)) row.live = false;
      const target = this.targets[gone.target]!;
      const data = {
        id: gone.id,
        targetType: target.type,
        targetId: target.id,
        authorId: this.ids[gone.author]!,
        createdAt: at,
        deletedAt: at,
      };
      return [...events, createEvent(commentDeleted, data, context)];
    });
  }

  private mentionEvent(comment: ModelComment, user: number, at: string, what: 'created' | 'deleted'): EventEnvelope {
    const target = this.targets[comment.target]!;
    const data = {
      kind: kinds[target.type],
      mentionId: newId(),
      mentionedUserId: this.ids[user]!,
      actorId: this.ids[comment.author]!,
      commentId: comment.id,
      targetType: target.type,
      targetId: target.id,
      createdAt: at,
    };
    const context = { producer: 'comments', correlationId: 'conversation' };
    return what === 'created'
      ? createEvent(commentMentionCreated, data, context)
      : createEvent(commentMentionDeleted, { ...data, deletedAt: at }, context);
  }

  /** What each user should see: `user:comment:type` for every notification that shows. */
  expected(): string[] {
    return [...this.rows]
      .filter(([, row]) => row.live)
      .map(([key, row]) => `${this.ids[Number(key.split(':')[0])]}:${key.split(':')[1]}:${row.type}`)
      .sort();
  }
}

describe('conversations in any interleaving', () => {
  it('leave each user one notification per comment, by precedence, never their own, none silenced, retractions exact', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(action, { minLength: 1, maxLength: 14 }),
        fc.infiniteStream(fc.nat()),
        async (steps, picks) => {
          const model = new Conversation();
          for (const step of steps) {
            const events = model.apply(step);
            // Within a step the events come in any order, some twice (a consumer restarted before its ack).
            const shuffled = events
              .map((event) => ({ event, key: picks.next().value as number }))
              .sort((a, b) => a.key - b.key)
              .map(({ event }) => event);
            for (const event of shuffled) {
              await harness.deliver(event);
              if ((picks.next().value as number) % 4 === 0) await harness.deliver(event);
            }
          }
          const { rows } = await harness.pool.query<{ key: string; actor: string; recipient: string }>(
            `SELECT recipient_id || ':' || comment_id || ':' || type AS key, actor_id AS actor, recipient_id AS recipient
             FROM notifications WHERE recipient_id = ANY($1::uuid[]) AND retracted_at IS NULL`,
            [model.ids],
          );
          expect(rows.filter((row) => row.actor === row.recipient)).toEqual([]);
          expect(rows.map((row) => row.key).sort()).toEqual(model.expected());
          const counts = await harness.pool.query<{ recipient_id: string; total: number }>(
            'SELECT recipient_id, total FROM notification_counts WHERE recipient_id = ANY($1::uuid[])',
            [model.ids],
          );
          for (const { recipient_id, total } of counts.rows)
            expect(total).toBe(rows.filter((row) => row.recipient === recipient_id).length);
        },
      ),
      { numRuns: 150 },
    );
  }, 240_000);
});
