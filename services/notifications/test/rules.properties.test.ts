import { newId } from '@recipes/contracts';
import { erasedIdHash } from '@recipes/runtime';
import { migratedPool } from '@recipes/testing/service';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { insertNotification } from '../src/repository/notifications.js';
import { type Candidate, whyWithheld, type World } from '../src/rules/index.js';
import { notificationsService } from '../src/service.js';

/**
 * Each rule says the same thing twice, in SQL for `store_notification` and in TypeScript for a reader
 * (src/rules/rule.ts). Over random worlds written into the tables, the notification the database stores or
 * withholds, and the rule it names, are those the TypeScript rules give.
 */
const pool = migratedPool(notificationsService);

const TIMES = ['2026-11-29T10:00:00.000Z', '2026-11-29T10:00:00.001Z', '2026-11-29T11:00:00.000Z'];
const COMMENT_TYPES = ['mention_recipe_comment', 'reply_comment', 'comment_recipe'] as const;
const TAG_TYPES = ['tag_recipe', 'tag_post'] as const;
const TYPES = [...COMMENT_TYPES, ...TAG_TYPES];

/** A world and a candidate over two users, two recipes and two comments, by index: so that they meet. */
const scenario = fc.record({
  deletedContent: fc.uniqueArray(fc.nat(1), { maxLength: 2 }),
  deletedComments: fc.uniqueArray(fc.nat(1), { maxLength: 2 }),
  // Seldom, so that the other rules are reached.
  erasedUsers: fc.oneof({ weight: 4, arbitrary: fc.constant([]) }, fc.uniqueArray(fc.nat(1), { maxLength: 1 })),
  relations: fc.uniqueArray(
    fc.record({
      user: fc.nat(1),
      target: fc.nat(1),
      muted: fc.boolean(),
      blocked: fc.boolean(),
      unblocked: fc.option(fc.nat(2)),
    }),
    { maxLength: 4, selector: (r) => `${r.user}:${r.target}` },
  ),
  preferences: fc.uniqueArray(
    fc.record({ recipient: fc.nat(1), type: fc.constantFrom(...TYPES), enabled: fc.boolean() }),
    { maxLength: 4, selector: (p) => `${p.recipient}:${p.type}` },
  ),
  // Unique as the table's index keeps them: one notification per user per comment.
  notifications: fc.uniqueArray(
    fc.record({ recipient: fc.nat(1), comment: fc.option(fc.nat(1)), sameSource: fc.boolean() }),
    { maxLength: 3, selector: (n) => `${n.recipient}:${n.comment}` },
  ),
  candidate: fc.record({
    recipient: fc.nat(1),
    actor: fc.nat(1),
    content: fc.nat(1),
    comment: fc.option(fc.nat(1)),
    commentType: fc.constantFrom(...COMMENT_TYPES),
    tagType: fc.constantFrom(...TAG_TYPES),
    at: fc.nat(2),
  }),
});

type Scenario = typeof scenario extends fc.Arbitrary<infer S> ? S : never;

/** The scenario with fresh ids: its world, and its candidate. */
function realise(s: Scenario): { world: World; candidate: Candidate } {
  const [users, contents, comments] = [2, 2, 2].map((n) => Array.from({ length: n }, () => newId())) as [
    string[],
    string[],
    string[],
  ];
  const c = s.candidate;
  const commentId = c.comment === null ? null : comments[c.comment]!;
  const candidate: Candidate = {
    recipientId: users[c.recipient]!,
    actorId: users[c.actor]!,
    type: commentId === null ? c.tagType : c.commentType,
    contentType: commentId === null && c.tagType === 'tag_post' ? 'post' : 'recipe',
    contentId: contents[c.content]!,
    commentId,
    createdAt: TIMES[c.at]!,
    sourceEventId: newId(),
  };
  const world: World = {
    deletedContent: s.deletedContent.map((i) => ({ type: 'recipe' as const, id: contents[i]! })),
    deletedComments: s.deletedComments.map((i) => comments[i]!),
    erasedUsers: s.erasedUsers.map((i) => users[i]!),
    relations: s.relations.map((r) => ({
      userId: users[r.user]!,
      targetId: users[r.target]!,
      muted: r.muted,
      blocked: r.blocked,
      lastUnblockedAt: r.unblocked === null ? null : TIMES[r.unblocked]!,
    })),
    preferences: s.preferences.map((p) => ({ recipientId: users[p.recipient]!, type: p.type, enabled: p.enabled })),
    notifications: s.notifications.map((n, i) => ({
      recipientId: users[n.recipient]!,
      commentId: n.comment === null ? null : comments[n.comment]!,
      // One at most takes the candidate's source event: the column is unique.
      sourceEventId:
        n.sameSource && !s.notifications.slice(0, i).some((m) => m.sameSource) ? candidate.sourceEventId : newId(),
    })),
  };
  return { world, candidate };
}

async function write(world: World): Promise<void> {
  for (const d of world.deletedContent)
    await pool.query('INSERT INTO deleted_content (content_type, content_id) VALUES ($1, $2)', [d.type, d.id]);
  for (const id of world.erasedUsers)
    await pool.query(`INSERT INTO erased_users (id_hash) VALUES (${erasedIdHash('$1')})`, [id]);
  for (const id of world.deletedComments)
    await pool.query('INSERT INTO deleted_comments (comment_id) VALUES ($1)', [id]);
  for (const r of world.relations)
    await pool.query(
      'INSERT INTO user_relations (user_id, target_id, muted, blocked, last_unblocked_at, revision) VALUES ($1, $2, $3, $4, $5, 1)',
      [r.userId, r.targetId, r.muted, r.blocked, r.lastUnblockedAt],
    );
  for (const p of world.preferences)
    await pool.query('INSERT INTO notification_preferences (recipient_id, type, enabled) VALUES ($1, $2, $3)', [
      p.recipientId,
      p.type,
      p.enabled,
    ]);
  for (const [i, n] of world.notifications.entries())
    await pool.query(
      `INSERT INTO notifications (id, recipient_id, type, actor_id, content_type, content_id, comment_id, created_at, source_event_id, sequence)
       VALUES ($1, $2, $3, $4, 'recipe', $5, $6, $7, $8, $9)`,
      [
        newId(),
        n.recipientId,
        n.commentId === null ? 'tag_recipe' : 'mention_recipe_comment',
        newId(),
        newId(),
        n.commentId,
        TIMES[0],
        n.sourceEventId,
        -1 - i,
      ],
    );
}

describe('store_notification and the rules of src/rules', () => {
  it('store or withhold the same notifications, naming the same rule', async () => {
    await fc.assert(
      fc.asyncProperty(scenario, async (s) => {
        const { world, candidate } = realise(s);
        await write(world);
        const { sourceEventId, ...notification } = candidate;
        const answer = await insertNotification(
          pool,
          newId(),
          { id: sourceEventId, type: 'comment.mention.created' },
          notification,
        );
        const expected = whyWithheld(world, candidate);
        if (expected === undefined) expect(answer).toMatchObject({ sequence: expect.any(Number) });
        else expect(answer).toEqual({ withheldBy: expected });
      }),
      { numRuns: 300 },
    );
  });
});
