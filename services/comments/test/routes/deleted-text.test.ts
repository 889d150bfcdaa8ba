import {
  collectionDeleted,
  createEvent,
  newId,
  postDeleted,
  recipeDeleted,
  type UserSnapshot,
  userDeleted,
} from '@recipes/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, type CommentsHarness, commentsHarness, commentsUrl, generousLimits, type Kind } from '../support.js';
import { commentCalls } from './comment-calls.js';

/**
 * A deleted comment keeps no text (docs/api.md §11.2, migrations/013), whoever deleted it and why: its author, the
 * owner of what it is on, its thread's deletion, its target's deletion, an account's erasure. Its row keeps what the
 * events, the threads and the counts need; its words, which may name anyone (`@name`), go in the write that deletes
 * it. Others' live comments keep theirs.
 */
let harness: CommentsHarness;
beforeAll(async () => (harness = await commentsHarness(generousLimits)));
afterAll(() => harness.close());

const { unique, post, get, commented } = commentCalls(() => harness);

interface Person {
  user: UserSnapshot;
  token: string;
}
const person = (name: string): Person => harness.register(unique(name));

const remove = (kind: Kind, target: string, commentId: string, by: Person) =>
  harness.app.inject({ method: 'DELETE', url: `${commentsUrl(kind, target)}/${commentId}`, headers: bearer(by.token) });

async function replied(kind: Kind, target: string, by: Person, parentId: string, content: string) {
  const response = await post(kind, target, { content, parentId }, bearer(by.token));
  expect(response.statusCode, response.body).toBe(201);
  return response.json().comment as { id: string };
}

/** The stored rows of `ids`: what is left of each, by id. */
async function rowsOf(ids: string[]) {
  const { rows } = await harness.pool.query<{ id: string; content: string; deleted: boolean }>(
    'SELECT id, content, deleted_at IS NOT NULL AS deleted FROM comments WHERE id = ANY($1::uuid[]) ORDER BY id',
    [ids],
  );
  return Object.fromEntries(rows.map(({ id, ...row }) => [id, row]));
}

const gone = { content: '', deleted: true };

function targetDeletion(kind: Kind, id: string) {
  const context = { producer: kind === 'collection' ? 'collections' : 'content', correlationId: `deleted-${id}` };
  const createdAt = new Date().toISOString();
  if (kind === 'collection') {
    return createEvent(
      collectionDeleted,
      { id, ownerId: newId(), name: '', deleted: true, revision: 1, createdAt },
      context,
    );
  }
  const snapshot = { id, authorId: newId(), title: '', coverImageUrl: null, deleted: true, revision: 1, createdAt };
  return createEvent(kind === 'recipe' ? recipeDeleted : postDeleted, snapshot, context);
}

function accountDeletion(userId: string) {
  const now = new Date().toISOString();
  return createEvent(
    userDeleted,
    { userId, deletedAt: now, sessionIds: [], tokensExpireBy: now },
    { producer: 'users', correlationId: `left-${userId}` },
  );
}

describe.each(['recipe', 'collection', 'post'] as const)('a deleted comment on a %s keeps no text', (kind) => {
  it('deleted by its author or by the owner of what it is on', async () => {
    const owner = person('Owner');
    const ada = person('Ada');
    const target = harness.target(kind, owner.user.id);
    const own = await commented(kind, target, ada.token, `mine, @${owner.user.username}`);
    const theirs = await commented(kind, target, ada.token, `yours, @${owner.user.username}`);
    const stays = await commented(kind, target, ada.token, `still here, @${owner.user.username}`);
    expect((await remove(kind, target, own.id, ada)).statusCode).toBe(200);
    expect((await remove(kind, target, theirs.id, owner)).statusCode).toBe(200);
    expect(await rowsOf([own.id, theirs.id, stays.id])).toEqual({
      [own.id]: gone,
      [theirs.id]: gone,
      [stays.id]: { content: `still here, @${owner.user.username}`, deleted: false },
    });
  });

  it('deleted with its thread: the replies, whoever wrote them; a reply alone leaves its thread listed', async () => {
    const ada = person('Ada');
    const bob = person('Bob');
    const target = harness.target(kind);
    const top = await commented(kind, target, ada.token, 'a thread');
    const first = await replied(kind, target, bob, top.id, `@${ada.user.username} first`);
    const second = await replied(kind, target, bob, top.id, `@${ada.user.username} second`);
    expect((await remove(kind, target, first.id, bob)).statusCode).toBe(200);
    expect(await rowsOf([first.id])).toEqual({ [first.id]: gone });
    // The thread reads on without the deleted reply: nothing shows or needs its words.
    const replies = await harness.app.inject({ method: 'GET', url: `/api/comments/${top.id}/replies` });
    expect(replies.json().comments.map((c: { id: string; content: string }) => [c.id, c.content])).toEqual([
      [second.id, `@${ada.user.username} second`],
    ]);
    expect((await get(kind, target)).json().comments.map((c: { replyCount: number }) => c.replyCount)).toEqual([1, 0]);

    expect((await remove(kind, target, top.id, ada)).statusCode).toBe(200);
    expect(await rowsOf([top.id, first.id, second.id])).toEqual({
      [top.id]: gone,
      [first.id]: gone,
      [second.id]: gone,
    });
  });

  it('deleted with what it is on: every comment, others’ naming its owner included', async () => {
    const leaver = person('Leaver');
    const bob = person('Bob');
    const target = harness.target(kind, leaver.user.id);
    const top = await commented(kind, target, bob.token, `thanks @${leaver.user.username}`);
    const reply = await replied(kind, target, leaver, top.id, `you are welcome @${bob.user.username}`);
    await harness.deliver(targetDeletion(kind, target));
    expect(await rowsOf([top.id, reply.id])).toEqual({ [top.id]: gone, [reply.id]: gone });
    // Delivered again, as a broker may: still nothing, and no error.
    await harness.deliver(targetDeletion(kind, target));
    expect(await rowsOf([top.id, reply.id])).toEqual({ [top.id]: gone, [reply.id]: gone });
  });
});

describe('an account erased', () => {
  it('takes its comments for good, empties the replies its threads took, and leaves others’ live words', async () => {
    const leaver = person('Leaver');
    const bob = person('Bob');
    const elsewhere = harness.target('recipe');
    const top = await commented('recipe', elsewhere, leaver.token, `hello @${bob.user.username}`);
    const reply = await replied('recipe', elsewhere, bob, top.id, `hi @${leaver.user.username}`);
    const live = await commented('post', harness.target('post'), bob.token, `thanks @${leaver.user.username}`);
    await harness.deliver(accountDeletion(leaver.user.id));

    // Theirs are gone for good; the reply deleted with their thread keeps no word; others' live comment keeps all.
    expect(await rowsOf([top.id, reply.id, live.id])).toEqual({
      [reply.id]: gone,
      [live.id]: { content: `thanks @${leaver.user.username}`, deleted: false },
    });
  });
});

describe('the schema', () => {
  it('refuses a deleted comment that keeps its words, whatever statement writes it', async () => {
    const ada = person('Ada');
    const target = harness.target('recipe');
    const comment = await commented('recipe', target, ada.token, 'kept?');
    await expect(
      harness.pool.query('UPDATE comments SET deleted_at = now() WHERE id = $1', [comment.id]),
    ).rejects.toMatchObject({ code: '23514', constraint: 'comments_deleted_keep_no_text' });
    expect(await rowsOf([comment.id])).toEqual({ [comment.id]: { content: 'kept?', deleted: false } });
  });
});
