import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ContentHarness, contentHarnessWith, expectProblem, outboxEvents, type TestUser } from '../support.js';

let harness: ContentHarness, ada: TestUser, bob: TestUser;
beforeAll(
  async () =>
    ({
      harness,
      users: [ada, bob],
    } = await contentHarnessWith(['Ada_Posts', 'Bob_Posts'])),
);
afterAll(() => harness.close());

const MISSING = '0190f5a4-1c2d-7e3f-8a9b-0c1d2e3f4a5b';

async function publish(user: TestUser, body: Record<string, unknown> = {}, headers: Record<string, string> = {}) {
  const response = await harness.call('POST', '/api/posts', user, { title: 'Golden hour', ...body }, headers);
  expect(response.statusCode).toBe(201);
  return response.json().post;
}

describe('POST /api/posts', () => {
  it('publishes a post and answers with it', async () => {
    const post = await publish(ada, { title: ' Golden hour ', coverImageUrl: 'https://cdn.example.com/p.jpg' });
    expect(post).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      title: 'Golden hour',
      coverImageUrl: 'https://cdn.example.com/p.jpg',
      author: { id: ada.id, username: 'Ada_Posts', avatarUrl: null },
      createdAt: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/),
    });
    expect((await publish(ada)).coverImageUrl).toBeNull();
  });

  it.each([
    ['no title', {}],
    ['an empty title', { title: '' }],
    ['a title of 201 characters', { title: 'x'.repeat(201) }],
    ['a title with a control character', { title: 'a\u0007b' }],
    ['a cover that is not http(s)', { coverImageUrl: 'data:image/png;base64,AAAA' }],
    ['21 tagged names', { taggedUsernames: Array.from({ length: 21 }, (_, i) => `user_${i}`) }],
    ['tagged names that are not a list', { taggedUsernames: 'bob_posts' }],
  ])('rejects %s with 400 and writes nothing', async (_case, body) => {
    const before = await outboxEvents(harness.pool);
    expectProblem(await harness.call('POST', '/api/posts', ada, body), 400);
    expect(await outboxEvents(harness.pool)).toEqual(before);
  });

  it('needs a valid token, checked before the body', async () => {
    expectProblem(await harness.call('POST', '/api/posts', undefined, { title: 'x' }), 401);
    expectProblem(await harness.call('POST', '/api/posts', { token: 'garbage' }, {}), 401);
  });

  it('writes post.created and one content.user.tagged per tagged user, with the request id', async () => {
    const post = await publish(
      ada,
      { taggedUsernames: ['BOB_POSTS', 'bob_posts', 'Ada_Posts', 'unknown_one'] },
      { 'x-request-id': 'post-1' },
    );
    const created = (await outboxEvents(harness.pool, 'post.created')).filter((e) => e.data.id === post.id);
    expect(created).toEqual([
      expect.objectContaining({
        correlationId: 'post-1',
        data: {
          id: post.id,
          authorId: ada.id,
          title: 'Golden hour',
          coverImageUrl: null,
          deleted: false,
          revision: 0,
          createdAt: post.createdAt,
        },
      }),
    ]);
    const tags = (await outboxEvents(harness.pool, 'content.user.tagged')).filter((e) => e.data.contentId === post.id);
    expect(tags.map((e) => e.data)).toEqual([
      { contentType: 'post', contentId: post.id, actorId: ada.id, taggedUserId: bob.id, createdAt: post.createdAt },
    ]);
  });
});

describe('GET /api/posts/{id}', () => {
  it('answers with the post', async () => {
    const post = await publish(bob);
    const response = await harness.call('GET', `/api/posts/${post.id}`);
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ post });
  });

  it.each([MISSING, 'not-a-uuid'])('answers 404 for %s', async (id) => {
    expectProblem(await harness.call('GET', `/api/posts/${id}`), 404);
  });
});

describe('DELETE /api/posts/{id}', () => {
  it('lets the author delete, softly, keeping no text, and tells the other services', async () => {
    const post = await publish(ada, {
      title: 'Words that may name anyone',
      coverImageUrl: 'https://cdn.example.com/p.jpg',
    });
    const response = await harness.call('DELETE', `/api/posts/${post.id}`, ada, undefined, {
      'x-request-id': 'post-delete-1',
    });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ message: 'Post deleted' });
    expectProblem(await harness.call('GET', `/api/posts/${post.id}`), 404);
    expectProblem(await harness.call('DELETE', `/api/posts/${post.id}`, ada), 404);
    const deleted = (await outboxEvents(harness.pool, 'post.deleted')).filter((e) => e.data.id === post.id);
    expect(deleted).toEqual([
      expect.objectContaining({
        correlationId: 'post-delete-1',
        data: expect.objectContaining({ title: '', coverImageUrl: null, deleted: true, revision: 1 }),
      }),
    ]);
    // The row stays for the events; no word of it does (migrations/005).
    const { rows } = await harness.pool.query('SELECT title, cover_image_url FROM posts WHERE id = $1', [post.id]);
    expect(rows).toEqual([{ title: '', cover_image_url: null }]);
    await expect(harness.pool.query("UPDATE posts SET title = 'Back' WHERE id = $1", [post.id])).rejects.toMatchObject({
      code: '23514',
      constraint: 'posts_deleted_keep_no_text',
    });
  });

  it('checks the token, then existence, then ownership', async () => {
    const post = await publish(ada);
    expectProblem(await harness.call('DELETE', `/api/posts/${post.id}`), 401);
    expectProblem(await harness.call('DELETE', `/api/posts/${MISSING}`, bob), 404);
    expectProblem(await harness.call('DELETE', '/api/posts/nope', bob), 404);
    expectProblem(await harness.call('DELETE', `/api/posts/${post.id}`, bob), 403);
    expect((await harness.call('GET', `/api/posts/${post.id}`)).statusCode).toBe(200);
  });
});
