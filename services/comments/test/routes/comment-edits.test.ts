import { newId } from '@recipes/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  bearer,
  type CommentsHarness,
  commentsHarness,
  commentsUrl,
  expectProblem,
  generousLimits,
  type Kind,
  kinds,
} from '../support.js';

/** Editing and deleting comments: who may, what the mention stores and the outbox then hold. */
let harness: CommentsHarness;
beforeAll(async () => (harness = await commentsHarness(generousLimits)));
afterAll(() => harness.close());

let counter = 0;
const unique = (prefix: string) => `${prefix}_e${++counter}`;

async function commented(kind: Kind, target: string, token: string, content: string) {
  const response = await harness.app.inject({
    method: 'POST',
    url: commentsUrl(kind, target),
    payload: { content },
    headers: bearer(token),
  });
  expect(response.statusCode).toBe(201);
  return response.json().comment as { id: string; content: string; editedAt: string | null };
}

const edit = (kind: Kind, target: string, commentId: string, payload: unknown, token?: string, requestId = newId()) =>
  harness.app.inject({
    method: 'PATCH',
    url: `${commentsUrl(kind, target)}/${commentId}`,
    payload: payload as object,
    headers: { ...(token ? bearer(token) : {}), 'x-request-id': requestId },
  });
const remove = (kind: Kind, target: string, commentId: string, token?: string, requestId = newId()) =>
  harness.app.inject({
    method: 'DELETE',
    url: `${commentsUrl(kind, target)}/${commentId}`,
    headers: { ...(token ? bearer(token) : {}), 'x-request-id': requestId },
  });
const list = async (kind: Kind, target: string) =>
  (await harness.app.inject({ method: 'GET', url: commentsUrl(kind, target) })).json();

const mentioned = async (kind: Kind, commentId: string) =>
  (await harness.mentionRows(kind, commentId)).map((row) => row.mentioned_user_id).sort();
const eventsOf = async (correlationId: string, type: string) =>
  (await harness.outboxEvents(correlationId, type)).map((event) => event.data);

describe.each(kinds)('editing a comment on a %s', (kind) => {
  it('changes the text, sets editedAt, and moves the mentions with it: new ones announced, dropped ones retracted', async () => {
    const author = harness.register(unique('Author'));
    const [kept, dropped, added] = [
      harness.register(unique('Kept')),
      harness.register(unique('Dropped')),
      harness.register(unique('Added')),
    ];
    const target = harness.target(kind);
    const comment = await commented(
      kind,
      target,
      author.token,
      `hi @${kept.user.username} and @${dropped.user.username}`,
    );
    expect(comment.editedAt).toBeNull();

    const requestId = newId();
    const response = await edit(
      kind,
      target,
      comment.id,
      { content: `  hi @${kept.user.username} and @${added.user.username}  ` },
      author.token,
      requestId,
    );
    expect(response.statusCode).toBe(200);
    const { comment: edited } = response.json();
    expect(edited).toMatchObject({
      id: comment.id,
      content: `hi @${kept.user.username} and @${added.user.username}`,
      author: { id: author.user.id },
    });
    expect(Date.parse(edited.editedAt)).toBeGreaterThanOrEqual(Date.parse(edited.createdAt));
    expect((await list(kind, target)).comments).toEqual([edited]);

    expect(await mentioned(kind, comment.id)).toEqual([kept.user.id, added.user.id].sort());
    expect((await eventsOf(requestId, 'comment.mention.created')).map((data) => data.mentionedUserId)).toEqual([
      added.user.id,
    ]);
    const retracted = await eventsOf(requestId, 'comment.mention.deleted');
    expect(retracted).toEqual([
      expect.objectContaining({
        mentionedUserId: dropped.user.id,
        commentId: comment.id,
        actorId: author.user.id,
        targetId: target,
      }),
    ]);
    expect(await eventsOf(requestId, 'comment.updated')).toEqual([
      expect.objectContaining({ id: comment.id, editedAt: edited.editedAt }),
    ]);
  });

  it('lets nobody but the author edit (403), and changes nothing then', async () => {
    const author = harness.register(unique('Owner'));
    const other = harness.register(unique('Other'));
    const target = harness.target(kind, other.user.id);
    const comment = await commented(kind, target, author.token, 'mine');
    // Not even the owner of the target.
    expectProblem(await edit(kind, target, comment.id, { content: 'theirs' }, other.token), 403);
    expect((await list(kind, target)).comments[0]).toMatchObject({ content: 'mine', editedAt: null });
  });

  it('checks the token, then the body, then the comment: 401, 400, 404', async () => {
    const author = harness.register(unique('Checked'));
    const target = harness.target(kind);
    const comment = await commented(kind, target, author.token, 'checked');
    expectProblem(await edit(kind, target, comment.id, { content: 'x' }), 401);
    expectProblem(await edit(kind, target, comment.id, { content: '   ' }, author.token), 400);
    expectProblem(await edit(kind, target, 'not-a-uuid', { content: '' }, author.token), 400);
    expectProblem(await edit(kind, target, 'not-a-uuid', { content: 'fine' }, author.token), 404);
    expectProblem(await edit(kind, target, newId(), { content: 'fine' }, author.token), 404);
    // The comment exists, but on another target.
    expectProblem(await edit(kind, harness.target(kind), comment.id, { content: 'fine' }, author.token), 404);
    expectProblem(await edit(kind, newId(), comment.id, { content: 'fine' }, author.token), 404);
  });
});

describe.each(kinds)('deleting a comment on a %s', (kind) => {
  it('by its author: it leaves the list and the total, its mentions are retracted, and it is gone for good', async () => {
    const author = harness.register(unique('Deleter'));
    const friend = harness.register(unique('Friend'));
    const target = harness.target(kind);
    const kept = await commented(kind, target, author.token, 'stays');
    const comment = await commented(kind, target, author.token, `bye @${friend.user.username}`);
    const requestId = newId();
    const response = await remove(kind, target, comment.id, author.token, requestId);
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ message: 'Comment deleted' });

    const after = await list(kind, target);
    expect(after.comments.map((c: { id: string }) => c.id)).toEqual([kept.id]);
    expect(after.total).toBe(1);
    expect(await mentioned(kind, comment.id)).toEqual([]);
    expect(await eventsOf(requestId, 'comment.mention.deleted')).toEqual([
      expect.objectContaining({ mentionedUserId: friend.user.id, commentId: comment.id }),
    ]);
    expect(await eventsOf(requestId, 'comment.deleted')).toEqual([
      expect.objectContaining({ id: comment.id, targetType: kind, targetId: target, authorId: author.user.id }),
    ]);

    expectProblem(await remove(kind, target, comment.id, author.token), 404);
    expectProblem(await edit(kind, target, comment.id, { content: 'back?' }, author.token), 404);
  });

  it('by the owner of the target too, but by nobody else (403)', async () => {
    const owner = harness.register(unique('TargetOwner'));
    const author = harness.register(unique('Commenter'));
    const stranger = harness.register(unique('Stranger'));
    const target = harness.target(kind, owner.user.id);
    const comment = await commented(kind, target, author.token, 'on your thing');
    expectProblem(await remove(kind, target, comment.id, stranger.token), 403);
    expect((await list(kind, target)).total).toBe(1);
    expect((await remove(kind, target, comment.id, owner.token)).statusCode).toBe(200);
    expect((await list(kind, target)).total).toBe(0);
  });

  it('answers 401 without a token and 404 for an unknown comment, one on another target, or a missing target', async () => {
    const author = harness.register(unique('Unknown'));
    const target = harness.target(kind);
    const comment = await commented(kind, target, author.token, 'here');
    expectProblem(await remove(kind, target, comment.id), 401);
    expectProblem(await remove(kind, target, newId(), author.token), 404);
    expectProblem(await remove(kind, target, 'nope', author.token), 404);
    expectProblem(await remove(kind, harness.target(kind), comment.id, author.token), 404);
    expectProblem(await remove(kind, newId(), comment.id, author.token), 404);
    expect((await list(kind, target)).total).toBe(1);
  });
});
