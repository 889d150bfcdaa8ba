import { generateSigningKeyPair, TOKEN_ALGORITHM } from '@recipes/auth';
import {
  collectionDeleted,
  commentCreated,
  commentMentionCreated,
  createEvent,
  eventEnvelopeSchema,
  newId,
  postDeleted,
  recipeDeleted,
  userCreated,
} from '@recipes/contracts';
import { pagesAtOdds, readWhileWriting } from '@recipes/testing';
import { createSigner } from 'fast-jwt';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, type CommentsHarness, commentsHarness, commentsUrl, expectProblem, generousLimits, type Kind, kinds } from '../support.js';

let harness: CommentsHarness;
beforeAll(async () => (harness = await commentsHarness(generousLimits)));
afterAll(() => harness.close());

const mentionKinds = { recipe: 'recipe_comment', collection: 'collection_comment', post: 'post_comment' };
const titles = { recipe: 'Recipe', collection: 'Collection', post: 'Post' };

let counter = 0;
/** A username no other test uses. */
const unique = (prefix: string) => `${prefix}_${++counter}`;

const post = (kind: Kind, id: string, payload: unknown, headers: Record<string, string> = {}) =>
  harness.app.inject({ method: 'POST', url: commentsUrl(kind, id), payload: payload as object, headers });
const get = (kind: Kind, id: string, query = '') => harness.app.inject({ method: 'GET', url: `${commentsUrl(kind, id)}${query}` });


async function commented(kind: Kind, id: string, token: string, content: string, requestId = newId()) {
  const response = await post(kind, id, { content }, { ...bearer(token), 'x-request-id': requestId });
  expect(response.statusCode).toBe(201);
  return response.json().comment as { id: string; content: string; createdAt: string; author: { id: string } };
}


describe.each(kinds)('comments on a %s', (kind) => {
  it('lists nothing for a target without comments', async () => {
    const response = await get(kind, harness.target(kind));
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ comments: [], total: 0, pagination: { page: 1, limit: 50, total: 0, totalPages: 0, nextCursor: null } });
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
        author: { id: user.id, username: user.username, avatarUrl: null },
      },
    });
    const listed = await get(kind, target);
    expect(listed.json()).toEqual({ comments: [body.comment], total: 1, pagination: { page: 1, limit: 50, total: 1, totalPages: 1, nextCursor: null } });
  });

  it('writes comment.created in the same statement, and no mention for a comment without one', async () => {
    const target = harness.target(kind);
    const { user, token } = harness.register(unique('Counted'));
    const requestId = `counted-${newId()}`;
    const comment = await commented(kind, target, token, 'no names here, just bob@example.com', requestId);
    const [event, ...more] = await harness.outboxEvents(requestId, 'comment.created');
    expect(more).toEqual([]);
    expect(eventEnvelopeSchema.parse(event)).toMatchObject({ type: 'comment.created', version: 1, producer: 'comments' });
    expect(commentCreated.data.parse(event!.data)).toEqual({
      id: comment.id,
      targetType: kind,
      targetId: target,
      authorId: user.id,
      createdAt: comment.createdAt,
    });
    expect(await harness.outboxEvents(requestId, 'comment.mention.created')).toEqual([]);
    expect(await harness.mentionRows(kind, comment.id)).toEqual([]);
  });

  it('stores two mentions in its own store, each writing one full comment.mention.created', async () => {
    const target = harness.target(kind);
    const author = harness.register(unique('Writer'));
    const [ada, grace] = [harness.register(unique('Ada')).user, harness.register(unique('Grace')).user];
    const requestId = `mentions-${newId()}`;
    const comment = await commented(kind, target, author.token, `@${ada.username} and @${grace.username.toUpperCase()}, look!`, requestId);

    const rows = await harness.mentionRows(kind, comment.id);
    expect(rows.map((row) => row.mentioned_user_id).sort()).toEqual([ada.id, grace.id].sort());
    for (const other of kinds.filter((k) => k !== kind)) expect(await harness.mentionRows(other, comment.id)).toEqual([]);

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
    expect(expectProblem(await get(kind, missing), 404)).toMatchObject({ code: 'NOT_FOUND', detail: `${titles[kind]} not found` });
    expectProblem(await post(kind, missing, { content: 'hello?' }, bearer(token)), 404);
  });

  it('answers 404 once the target is deleted, and stores nothing for it', async () => {
    const target = harness.target(kind);
    const { token } = harness.register(unique('Late'));
    await commented(kind, target, token, 'before');
    await harness.deliver(deletion(kind, target));
    expectProblem(await get(kind, target), 404);
    expectProblem(await post(kind, target, { content: 'after' }, bearer(token)), 404);
    const { rows } = await harness.pool.query('SELECT content FROM comments WHERE target_id = $1', [target]);
    expect(rows).toEqual([{ content: 'before' }]);
  });
});

/** The owner's deletion event, as it arrives on this service's queue. */
function deletion(kind: Kind, id: string) {
  const context = { producer: kind === 'collection' ? 'collections' : 'content', correlationId: 'deleted' };
  const createdAt = new Date().toISOString();
  if (kind === 'collection') {
    return createEvent(collectionDeleted, { id, ownerId: newId(), name: 'Gone', deleted: true, revision: 1, createdAt }, context);
  }
  const snapshot = { id, authorId: newId(), title: 'Gone', coverImageUrl: null, deleted: true, revision: 1, createdAt };
  return createEvent(kind === 'recipe' ? recipeDeleted : postDeleted, snapshot, context);
}

describe('targets', () => {
  it('tells the kinds apart: a post is not a recipe', async () => {
    const { token } = harness.register(unique('Mixer'));
    const postId = harness.target('post');
    expectProblem(await get('recipe', postId), 404);
    expectProblem(await post('recipe', postId, { content: 'wrong door' }, bearer(token)), 404);
  });

  it.each(['not-a-uuid', '12345', 'x'.repeat(100), '0190f5a4-1c2d-7e3f-8a9b-0c1d2e3f4a5', "1' OR '1'='1", '%00', '%F0%9F%93%B7'])(
    'answers 404 for the id %j',
    async (id) => {
      const { token } = harness.register(unique('Odd'));
      for (const kind of kinds) {
        expectProblem(await harness.app.inject({ method: 'GET', url: commentsUrl(kind, id) }), 404);
        expectProblem(await post(kind, id, { content: 'hello' }, bearer(token)), 404);
      }
    },
  );
});

describe('listing', () => {
  it('lists oldest first, pages, clamps the limit, and counts every comment of the target', async () => {
    const target = harness.target('recipe');
    const { token } = harness.register(unique('Pager'));
    const first = await commented('recipe', target, token, 'first');
    const second = await commented('recipe', target, token, 'second');
    const third = await commented('recipe', target, token, 'third');
    await commented('recipe', harness.target('recipe'), token, 'elsewhere');

    expect((await get('recipe', target)).json().comments.map((c: { id: string }) => c.id)).toEqual([first.id, second.id, third.id]);
    const page2 = (await get('recipe', target, '?page=2&limit=2')).json();
    expect(page2).toEqual({ comments: [third], total: 3, pagination: { page: 2, limit: 2, total: 3, totalPages: 2, nextCursor: null } });
    expect((await get('recipe', target, '?limit=1000')).json().pagination).toEqual({ page: 1, limit: 100, total: 3, totalPages: 1, nextCursor: null });
    expect((await get('recipe', target, '?page=9&limit=2')).json()).toEqual({
      comments: [],
      total: 3,
      pagination: { page: 9, limit: 2, total: 3, totalPages: 2, nextCursor: null },
    });
  });

  it('answers each page of comments from one snapshot while their author deletes and adds comments, on every kind of target', async () => {
    const { token } = harness.register(unique('Churner'));
    const pagesOf = async (kind: Kind) => {
      const target = harness.target(kind);
      const live: string[] = [];
      for (let i = 0; i < 20; i++) live.push((await commented(kind, target, token, `comment ${i}`)).id);
      // Another client: one comment deleted, then one added, over and over; the total moves with each.
      const churn = async () => {
        for (let round = 0; round < 20; round++) {
          const deleted = await harness.app.inject({ method: 'DELETE', url: `${commentsUrl(kind, target)}/${live.shift()}`, headers: bearer(token) });
          expect(deleted.statusCode).toBe(200);
          live.push((await commented(kind, target, token, `comment ${20 + round}`)).id);
        }
      };
      return readWhileWriting(async () => (await get(kind, target, '?limit=100')).json(), churn, 2);
    };
    const answers = (await Promise.all(kinds.map(pagesOf))).flat();
    expect(pagesAtOdds(answers, (answer) => answer.comments)).toEqual([]);
    expect(answers.every((answer) => answer.total === answer.pagination.total)).toBe(true);
  });

  it('orders comments of the same millisecond by id', async () => {
    const target = harness.target('recipe');
    const { user, token } = harness.register(unique('Twin'));
    await commented('recipe', target, token, 'makes the author known');
    const [low, high] = ['00000000-0000-7000-8000-000000000001', '00000000-0000-7000-8000-000000000002'];
    await harness.pool.query(
      `INSERT INTO comments (id, target_type, target_id, author_id, content, created_at)
       VALUES ($1, 'recipe', $3, $4, 'high', '2020-01-01T00:00:00.000Z'), ($2, 'recipe', $3, $4, 'low', '2020-01-01T00:00:00.000Z')`,
      [high, low, target, user.id],
    );
    const listed = (await get('recipe', target)).json().comments.map((c: { content: string }) => c.content);
    expect(listed).toEqual(['low', 'high', 'makes the author known']);
  });

  it('shows each author as the users read model has them, and asks the users service only for one it lost', async () => {
    const target = harness.target('recipe');
    const { user, token } = harness.register(unique('Shown'));
    const comment = await commented('recipe', target, token, 'by a known author');
    const lookups = harness.owners.users.requests.length;
    const listed = (await get('recipe', target)).json().comments;
    expect(listed).toEqual([{ ...comment, author: { id: user.id, username: user.username, avatarUrl: null } }]);
    expect(harness.owners.users.requests.length).toBe(lookups);

    await harness.pool.query('DELETE FROM users WHERE id = $1', [user.id]);
    expect((await get('recipe', target)).json().comments).toEqual(listed);
    expect(harness.owners.users.requests.length).toBe(lookups + 1);
  });

  it.each(['?page=0', '?page=-1', '?page=1.5', '?page=abc', '?page=', '?limit=0', '?limit=1e3', '?limit=%201'])(
    'rejects %s with 400, even for a target that does not exist',
    async (query) => {
      const existing = expectProblem(await get('recipe', harness.target('recipe'), query), 400);
      expect(existing.code).toBe('VALIDATION_ERROR');
      expect(existing.errors?.length).toBeGreaterThan(0);
      expectProblem(await get('recipe', newId(), query), 400);
      expectProblem(await get('recipe', 'not-a-uuid', query), 400);
    },
  );

  it('ignores unknown query parameters', async () => {
    expect((await get('post', harness.target('post'), '?sort=desc&foo=bar')).statusCode).toBe(200);
  });
});

describe('content rules', () => {
  it.each([
    ['empty', ''],
    ['only white space', ' \n\t '],
    ['2001 characters', 'x'.repeat(2001)],
    ['2001 emoji', '📷'.repeat(2001)],
    ['a NUL', 'a\u0000b'],
    ['a bell', 'a\u0007b'],
    ['an escape', 'a\u001bb'],
    ['a form feed', 'a\fb'],
    ['a vertical tab', 'a\vb'],
    ['a lone surrogate', 'a\ud800b'],
    ['a number', 42],
    ['null', null],
    ['an object', { text: 'hi' }],
  ])('rejects %s with 400 and stores nothing', async (_case, content) => {
    const target = harness.target('recipe');
    const { token } = harness.register(unique('Strict'));
    const problem = expectProblem(await post('recipe', target, { content }, bearer(token)), 400);
    expect(problem.code).toBe('VALIDATION_ERROR');
    expect(problem.errors).toEqual([{ path: 'content', message: expect.any(String) }]);
    expect((await get('recipe', target)).json().total).toBe(0);
  });

  it('rejects a missing content and a body that is not JSON', async () => {
    const { token } = harness.register(unique('Formless'));
    const target = harness.target('recipe');
    expectProblem(await post('recipe', target, {}, bearer(token)), 400);
    const notJson = await harness.app.inject({
      method: 'POST',
      url: commentsUrl('recipe', target),
      payload: '{"content":',
      headers: { ...bearer(token), 'content-type': 'application/json' },
    });
    expectProblem(notJson, 400);
    const text = await harness.app.inject({
      method: 'POST',
      url: commentsUrl('recipe', target),
      payload: 'content=hi',
      headers: { ...bearer(token), 'content-type': 'text/plain' },
    });
    expectProblem(text, 415);
    expectProblem(await post('recipe', target, { content: 'x'.repeat(70_000) }, bearer(token)), 413);
  });

  it.each([
    ['2000 characters', 'x'.repeat(2000), 'x'.repeat(2000)],
    ['2000 emoji (4000 UTF-16 units)', '📷'.repeat(2000), '📷'.repeat(2000)],
    ['2000 characters inside white space', `  ${'y'.repeat(2000)}  \n`, 'y'.repeat(2000)],
    ['one character', 'a', 'a'],
    ['tabs and line breaks inside', ' a\tb\r\nc ', 'a\tb\r\nc'],
    ['other scripts', 'Schön — 写真 📷', 'Schön — 写真 📷'],
  ])('accepts %s', async (_case, content, stored) => {
    const { token } = harness.register(unique('Lenient'));
    expect((await commented('recipe', harness.target('recipe'), token, content)).content).toBe(stored);
  });

  it('ignores unknown body fields', async () => {
    const { token } = harness.register(unique('Extra'));
    const response = await post('post', harness.target('post'), { content: 'hi', author: 'someone else', id: newId() }, bearer(token));
    expect(response.statusCode).toBe(201);
  });
});

describe('authentication', () => {
  const forge = (claims: Record<string, unknown>, key = harness.keys.privateKey) =>
    createSigner({ key, algorithm: TOKEN_ALGORITHM })({
      iss: harness.config.JWT_ISSUER,
      aud: harness.config.JWT_AUDIENCE,
      iat: Math.floor(Date.now() / 1000),
      exp: Math.floor(Date.now() / 1000) + 600,
      ...claims,
    });
  const b64url = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');

  it('needs a valid token, checked before the body and the target', async () => {
    const { user } = harness.register(unique('Holder'));
    const claims = { sub: user.id, username: user.username };
    const tokens = {
      garbage: 'not-a-token',
      expired: forge({ ...claims, iat: Math.floor(Date.now() / 1000) - 7200, exp: Math.floor(Date.now() / 1000) - 3600 }),
      'wrong audience': forge({ ...claims, aud: 'someone-else' }),
      'signed by another key': forge(claims, generateSigningKeyPair().privateKey),
      'alg none': `${b64url({ alg: 'none', typ: 'JWT' })}.${b64url({ ...claims, iss: harness.config.JWT_ISSUER, aud: harness.config.JWT_AUDIENCE })}.`,
    };
    const target = harness.target('recipe');
    for (const kind of kinds) {
      expectProblem(await post(kind, target, { content: 'hi' }), 401);
      expectProblem(await post(kind, newId(), { content: '' }), 401);
      expectProblem(await post(kind, 'not-a-uuid', { content: 5 }), 401);
      for (const token of Object.values(tokens)) expectProblem(await post(kind, target, { content: 'hi' }, bearer(token)), 401);
    }
    expect((await post('recipe', target, { content: 'hi' }, bearer(forge(claims)))).statusCode).toBe(201);
  });

  it('refuses a well-signed token of a user the users service does not know', async () => {
    const token = forge({ sub: newId(), username: 'ghost_user' });
    expect(expectProblem(await post('recipe', harness.target('recipe'), { content: 'boo' }, bearer(token)), 401).code).toBe('UNAUTHORIZED');
  });

  it('validates the body before looking for the target: 400, then 404', async () => {
    const { token } = harness.register(unique('Orderly'));
    expectProblem(await post('recipe', newId(), { content: '' }, bearer(token)), 400);
    expectProblem(await post('collection', 'not-a-uuid', { content: '\u0000' }, bearer(token)), 400);
    expectProblem(await post('collection', 'not-a-uuid', { content: 'fine' }, bearer(token)), 404);
  });

  it('lists comments without a token', async () => {
    expect((await get('collection', harness.target('collection'))).statusCode).toBe(200);
  });
});

describe('mentions', () => {
  async function mentionedIn(content: string, author = harness.register(unique('Speaker'))) {
    const comment = await commented('recipe', harness.target('recipe'), author.token, content);
    return (await harness.mentionRows('recipe', comment.id)).map((row) => row.mentioned_user_id);
  }

  it('ignores the author, unknown names and repeats of one user in any case', async () => {
    const author = harness.register(unique('Self'));
    const ada = harness.register(unique('Ada')).user;
    const content = `@${author.user.username} @nobody_like_this @${ada.username} @${ada.username.toUpperCase()} @${ada.username.toLowerCase()}`;
    expect(await mentionedIn(content, author)).toEqual([ada.id]);
  });

  it('mentions nobody in an email address, or in a name of 31 characters', async () => {
    const ada = harness.register(unique('Ada')).user;
    expect(await mentionedIn(`mail ${ada.username}@example.com or x@${ada.username}, @${ada.username}${'x'.repeat(31)}`)).toEqual([]);
  });

  it('mentions the first ten users who exist, in text order, not counting unknown names or the author', async () => {
    const author = harness.register(unique('Popular'));
    const users = Array.from({ length: 12 }, () => harness.register(unique('Fan')).user);
    const content = [`@${author.user.username}`, '@unknown_fan', ...users.map((user) => `@${user.username}`)].join(' ');
    const requestId = `ten-${newId()}`;
    const comment = await commented('recipe', harness.target('recipe'), author.token, content, requestId);
    const rows = await harness.mentionRows('recipe', comment.id);
    expect(rows.map((row) => row.mentioned_user_id).sort()).toEqual(users.slice(0, 10).map((user) => user.id).sort());
    expect(await harness.outboxEvents(requestId, 'comment.mention.created')).toHaveLength(10);
  });

  it('finds a user named after more unknown names than one look-up takes', async () => {
    const ada = harness.register(unique('Patient'));
    const unknown = Array.from({ length: 60 }, (_, index) => `@nobody_${index}`).join(' ');
    expect(await mentionedIn(`${unknown} @${ada.user.username}`)).toEqual([ada.user.id]);
  });

  it('resolves a user it heard of through user.created without asking the users service', async () => {
    const known = { id: newId(), username: unique('Evented'), avatarUrl: 'https://cdn.example.com/a.png', revision: 0 };
    await harness.deliver(createEvent(userCreated, known, { producer: 'users', correlationId: 'c' }));
    expect(await mentionedIn(`hi @${known.username}`)).toEqual([known.id]);
  });
});

describe('one statement', () => {
  it('stores no comment, no mention and no event when the comment fails after its mentions were stored', async () => {
    const target = harness.target('recipe');
    const author = harness.register(unique('Doomed'));
    const [ada, grace] = [harness.register(unique('Ada')).user, harness.register(unique('Grace')).user];
    const content = `@${ada.username} @${grace.username}`;
    // Fails the second mention's event, the statement's last write, only once the comment, its
    // comment.created and the first mention's event are written: the failure comes after them, never before.
    await harness.pool.query(`
      CREATE FUNCTION fail_doomed_comment() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF NEW.type = 'comment.mention.created' AND current_setting('comments.correlation_id', true) = 'doomed'
           AND EXISTS (SELECT 1 FROM outbox WHERE type = 'comment.created' AND payload->>'correlationId' = 'doomed')
           AND (SELECT count(*) FROM outbox WHERE type = 'comment.mention.created' AND payload->>'correlationId' = 'doomed') = 1 THEN
          RAISE EXCEPTION 'comment failed after its mentions';
        END IF;
        RETURN NEW;
      END $$;
      CREATE TRIGGER fail_doomed_comment BEFORE INSERT ON outbox FOR EACH ROW EXECUTE FUNCTION fail_doomed_comment();`);
    try {
      const response = await post('recipe', target, { content }, { ...bearer(author.token), 'x-request-id': 'doomed' });
      const problem = expectProblem(response, 500);
      expect(problem).toMatchObject({ code: 'INTERNAL_ERROR', detail: 'An unexpected error occurred' });
      expect(JSON.stringify(problem)).not.toMatch(/mentions|outbox|trigger/);
    } finally {
      await harness.pool.query('DROP TRIGGER fail_doomed_comment ON outbox; DROP FUNCTION fail_doomed_comment()');
    }
    const stored = await harness.pool.query(
      `SELECT (SELECT count(*)::int FROM comments WHERE target_id = $1) AS comments,
              (SELECT count(*)::int FROM recipe_comment_mentions WHERE mentioned_user_id = ANY($2::uuid[])) AS mentions,
              (SELECT count(*)::int FROM outbox WHERE payload->>'correlationId' = 'doomed') AS events`,
      [target, [ada.id, grace.id]],
    );
    expect(stored.rows[0]).toEqual({ comments: 0, mentions: 0, events: 0 });

    // The same comment in a request that is not doomed goes through.
    const comment = await commented('recipe', target, author.token, content, 'spared');
    expect(await harness.mentionRows('recipe', comment.id)).toHaveLength(2);
  });
});

describe('rate limit', () => {
  it('limits comments per caller across every kind of target, with Retry-After', async () => {
    const limited = await harness.anotherApp({ COMMENT_LIMIT_PER_MINUTE: '3' });
    const send = (kind: Kind, token: string) =>
      limited.inject({ method: 'POST', url: commentsUrl(kind, harness.target(kind)), payload: { content: 'again' }, headers: bearer(token) });
    const eager = harness.register(unique('Eager'));
    const statuses = [];
    for (const kind of ['recipe', 'post', 'collection', 'recipe'] as const) statuses.push((await send(kind, eager.token)).statusCode);
    expect(statuses).toEqual([201, 201, 201, 429]);
    const refused = await send('post', eager.token);
    expect(expectProblem(refused, 429).code).toBe('RATE_LIMITED');
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);

    // Another caller is not affected, and reading is not limited.
    expect((await send('recipe', harness.register(unique('Calm')).token)).statusCode).toBe(201);
    expect((await limited.inject({ method: 'GET', url: commentsUrl('recipe', harness.target('recipe')) })).statusCode).toBe(200);
  });
});

describe('API document', () => {
  it('describes the twelve operations, and nothing else', async () => {
    const document = (await harness.app.inject({ method: 'GET', url: '/openapi.json' })).json();
    const operations = Object.entries(document.paths as Record<string, object>).flatMap(([path, methods]) =>
      Object.keys(methods).map((method) => `${method.toUpperCase()} ${path}`),
    );
    expect(operations.sort()).toEqual(
      kinds
        .flatMap((kind) => [
          `GET /api/${kind}s/{id}/comments`,
          `POST /api/${kind}s/{id}/comments`,
          `PATCH /api/${kind}s/{id}/comments/{commentId}`,
          `DELETE /api/${kind}s/{id}/comments/{commentId}`,
        ])
        .sort(),
    );
  });
});
