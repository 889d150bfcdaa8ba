import { commentCreated, commentMentionCreated, eventEnvelopeSchema, newId } from '@recipes/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  bearer,
  type CommentsHarness,
  commentsHarness,
  commentsUrl,
  expectProblem,
  generousLimits,
  kinds,
  targetDeletion,
} from '../support.js';
import { commentCalls } from './comment-calls.js';

let harness: CommentsHarness;
beforeAll(async () => (harness = await commentsHarness(generousLimits)));
afterAll(() => harness.close());

const mentionKinds = { recipe: 'recipe_comment', collection: 'collection_comment', post: 'post_comment' };
const titles = { recipe: 'Recipe', collection: 'Collection', post: 'Post' };

const { unique, post, get, commented } = commentCalls(() => harness);

describe.each(kinds)('comments on a %s', (kind) => {
  it('lists nothing for a target without comments', async () => {
    const response = await get(kind, harness.target(kind));
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({
      comments: [],
      total: 0,
      pagination: { page: 1, limit: 50, total: 0, totalPages: 0, nextCursor: null },
    });
  });

  it('adds a comment by the caller, trimmed, as soon as target and caller exist, and lists it', async () => {
    const target = harness.target(kind);
    const { user, token } = harness.register(unique('Author'));
    const response = await post(kind, target, { content: '  Lovely tones\n' }, bearer(token));
    expect(response.statusCode).toBe(201);
    const body = response.json();
    expect(body).toEqual({
      message: 'Comment added successfully',
      comment: {
        id: expect.stringMatching(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/),
        content: 'Lovely tones',
        createdAt: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/),
        editedAt: null,
        targetType: kind,
        targetId: target,
        parentId: null,
        replyCount: 0,
        author: { id: user.id, username: user.username, avatarUrl: null },
      },
    });
    const listed = await get(kind, target);
    expect(listed.json()).toEqual({
      comments: [body.comment],
      total: 1,
      pagination: { page: 1, limit: 50, total: 1, totalPages: 1, nextCursor: null },
    });
  });

  it('writes comment.created in the same statement, and no mention for a comment without one', async () => {
    const target = harness.target(kind);
    const { user, token } = harness.register(unique('Counted'));
    const requestId = `counted-${newId()}`;
    const comment = await commented(kind, target, token, 'no names here, just bob@example.com', requestId);
    const [event, ...more] = await harness.outboxEvents(requestId, 'comment.created');
    expect(more).toEqual([]);
    expect(eventEnvelopeSchema.parse(event)).toMatchObject({
      type: 'comment.created',
      version: 1,
      producer: 'comments',
    });
    expect(commentCreated.data.parse(event!.data)).toEqual({
      id: comment.id,
      targetType: kind,
      targetId: target,
      authorId: user.id,
      createdAt: comment.createdAt,
      parentId: null,
      targetOwnerId: expect.any(String),
      repliedToAuthorId: null,
      mentionedUserIds: [],
    });
    expect(await harness.outboxEvents(requestId, 'comment.mention.created')).toEqual([]);
    expect(await harness.mentionRows(kind, comment.id)).toEqual([]);
  });

  it('stores two mentions in its own store, each writing one full comment.mention.created', async () => {
    const target = harness.target(kind);
    const author = harness.register(unique('Writer'));
    const [ada, grace] = [harness.register(unique('Ada')).user, harness.register(unique('Grace')).user];
    const requestId = `mentions-${newId()}`;
    const comment = await commented(
      kind,
      target,
      author.token,
      `@${ada.username} and @${grace.username.toUpperCase()}, look!`,
      requestId,
    );

    const rows = await harness.mentionRows(kind, comment.id);
    expect(rows.map((row) => row.mentioned_user_id).sort()).toEqual([ada.id, grace.id].sort());
    for (const other of kinds.filter((k) => k !== kind))
      expect(await harness.mentionRows(other, comment.id)).toEqual([]);

    const events = await harness.outboxEvents(requestId, 'comment.mention.created');
    expect(events).toHaveLength(2);
    for (const event of events) {
      expect(eventEnvelopeSchema.parse(event)).toMatchObject({
        type: 'comment.mention.created',
        version: 1,
        producer: 'comments',
        correlationId: requestId,
        occurredAt: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/),
      });
      expect(event.id[14]).toBe('7'); // a v7 UUID from the migration's function
      const data = commentMentionCreated.data.parse(event.data);
      const row = rows.find((r) => r.id === data.mentionId)!;
      expect(data).toEqual({
        kind: mentionKinds[kind],
        mentionId: row.id,
        mentionedUserId: row.mentioned_user_id,
        actorId: author.user.id,
        commentId: comment.id,
        targetType: kind,
        targetId: target,
        createdAt: row.created_at.toISOString(),
      });
    }
    expect(new Set(events.map((event) => event.id)).size).toBe(2);
    expect(await harness.outboxEvents(requestId, 'comment.created')).toHaveLength(1);
  });

  it('answers 404 for a target that never existed, for GET and POST alike', async () => {
    const { token } = harness.register(unique('Lost'));
    const missing = newId();
    expect(expectProblem(await get(kind, missing), 404)).toMatchObject({
      code: 'NOT_FOUND',
      detail: `${titles[kind]} not found`,
    });
    expectProblem(await post(kind, missing, { content: 'hello?' }, bearer(token)), 404);
  });

  it('answers 404 once the target is deleted, stores nothing for it, and keeps no text of its comments', async () => {
    const target = harness.target(kind);
    const { token } = harness.register(unique('Late'));
    await commented(kind, target, token, 'before');
    await harness.deliver(targetDeletion(kind, target));
    expectProblem(await get(kind, target), 404);
    expectProblem(await post(kind, target, { content: 'after' }, bearer(token)), 404);
    const { rows } = await harness.pool.query('SELECT content FROM comments WHERE target_id = $1', [target]);
    // Deleted with its target: the row stays, its words do not (migrations/013).
    expect(rows).toEqual([{ content: '' }]);
  });
});

describe('targets', () => {
  it('tells the kinds apart: a post is not a recipe', async () => {
    const { token } = harness.register(unique('Mixer'));
    const postId = harness.target('post');
    expectProblem(await get('recipe', postId), 404);
    expectProblem(await post('recipe', postId, { content: 'wrong door' }, bearer(token)), 404);
  });

  it.each([
    'not-a-uuid',
    '12345',
    'x'.repeat(100),
    '0190f5a4-1c2d-7e3f-8a9b-0c1d2e3f4a5',
    "1' OR '1'='1",
    '%00',
    '%F0%9F%93%B7',
  ])('answers 404 for the id %j', async (id) => {
    const { token } = harness.register(unique('Odd'));
    for (const kind of kinds) {
      expectProblem(await harness.app.inject({ method: 'GET', url: commentsUrl(kind, id) }), 404);
      expectProblem(await post(kind, id, { content: 'hello' }, bearer(token)), 404);
    }
  });
});
