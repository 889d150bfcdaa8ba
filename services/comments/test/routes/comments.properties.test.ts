import { commentCreated, commentMentionCreated, newId, problemSchema, type UserSnapshot } from '@recipes/contracts';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, type CommentsHarness, commentsHarness, commentsUrl, kinds } from '../support.js';

/** Whatever a client sends, the answer is a considered one: never a 500, every error problem+json. */
let harness: CommentsHarness;
let recipeId: string;
let token: string;
beforeAll(async () => {
  harness = await commentsHarness({ COMMENT_LIMIT_PER_MINUTE: '100000', NOTIFICATION_BUDGET_PER_HOUR: '100000' });
  recipeId = harness.owners.content.publish('recipe').id;
  token = harness.register('property_tester').token;
});
afterAll(() => harness.close());

const RUNS = 150;

function expectConsidered(
  response: { statusCode: number; headers: Record<string, unknown>; json(): unknown },
  allowed: number[],
) {
  expect(allowed).toContain(response.statusCode);
  if (response.statusCode >= 400) {
    expect(response.headers['content-type']).toMatch(/^application\/problem\+json/);
    problemSchema.parse(response.json());
  }
}

const post = (url: string, payload: string) =>
  harness.app.inject({
    method: 'POST',
    url,
    payload,
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
  });

describe('odd input', () => {
  it('bodies: any JSON, any content string, or no JSON at all', async () => {
    const body = fc.oneof(
      fc.jsonValue().map((value) => JSON.stringify(value)),
      fc.record({ content: fc.string({ unit: 'binary', maxLength: 2100 }) }).map((value) => JSON.stringify(value)),
      fc.record({ content: fc.jsonValue() }).map((value) => JSON.stringify(value)),
      fc.string({ unit: 'binary' }),
    );
    await fc.assert(
      fc.asyncProperty(body, async (payload) => {
        const response = await post(`/api/recipes/${recipeId}/comments`, payload);
        expectConsidered(response, [201, 400]);
        if (response.statusCode === 201) {
          expect(response.json().comment.content).toBe((JSON.parse(payload) as { content: string }).content.trim());
        }
      }),
      { numRuns: RUNS },
    );
  });

  it('ids: anything in the path names nothing', async () => {
    const id = fc.oneof(
      fc.string({ unit: 'grapheme', minLength: 1 }),
      fc.uuid(),
      fc.stringMatching(/^[0-9a-fA-F-]{30,40}$/),
    );
    const kind = fc.constantFrom('recipes', 'collections', 'posts');
    await fc.assert(
      fc.asyncProperty(kind, id, async (prefix, raw) => {
        const url = `/api/${prefix}/${encodeURIComponent(raw)}/comments`;
        // 404 for any id the router hands over; 400/414 for URLs it refuses before routing.
        expectConsidered(await harness.app.inject({ method: 'GET', url }), [400, 404, 414]);
        expectConsidered(await post(url, JSON.stringify({ content: 'hello' })), [400, 404, 414]);
      }),
      { numRuns: RUNS },
    );
  });

  it('query strings: any page, limit or other parameter', async () => {
    const value = fc.oneof(fc.string({ unit: 'grapheme' }), fc.integer().map(String), fc.double().map(String));
    const query = fc.dictionary(fc.constantFrom('page', 'limit', 'sort', 'page[]', 'limit.x'), value);
    await fc.assert(
      fc.asyncProperty(query, async (parameters) => {
        const url = `/api/recipes/${recipeId}/comments?${new URLSearchParams(parameters).toString()}`;
        const response = await harness.app.inject({ method: 'GET', url });
        expectConsidered(response, [200, 400]);
        if (response.statusCode === 200) expect(response.json().pagination.limit).toBeLessThanOrEqual(100);
      }),
      { numRuns: RUNS },
    );
  });
});

describe('what a new comment writes', () => {
  // More people than the ten a comment may mention, and its author.
  const PEOPLE = 14;
  let author: { user: UserSnapshot; token: string };
  let people: UserSnapshot[];
  beforeAll(() => {
    author = harness.register('property_author');
    people = Array.from({ length: PEOPLE }, (_, index) => harness.register(`property_person_${index}`).user);
  });

  it('the first ten people it names, one comment.mention.created each, and one comment.created, whatever the text', async () => {
    const casing = fc.constantFrom(
      (name: string) => name,
      (name: string) => name.toUpperCase(),
      (name: string) => name.toLowerCase(),
    );
    const person = fc.nat({ max: PEOPLE - 1 });
    // Each word of the text, and the person it mentions, if any: mostly people, so that many texts name more than ten.
    const word = fc.oneof(
      {
        arbitrary: fc
          .tuple(person, casing)
          .map(([index, cased]) => ({ text: `@${cased(people[index]!.username)}`, mentions: people[index]!.id })),
        weight: 6,
      },
      casing.map((cased) => ({ text: `@${cased(author.user.username)}` })),
      fc.nat({ max: 99 }).map((n) => ({ text: `@nobody_${n}` })),
      person.map((index) => ({ text: `${people[index]!.username}@example.com` })),
      fc.constantFrom('nice', 'shot!', '(@)', '@ab', '@').map((text) => ({ text })),
    );
    const separator = fc.constantFrom(' ', ', ', '\n', ' — ');
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...kinds),
        fc.array(word, { maxLength: 40, size: 'max' }),
        separator,
        async (kind, words, between) => {
          const content = words.length === 0 ? 'no words' : words.map((w) => w.text).join(between);
          const expected = [...new Set(words.flatMap((w) => (w.mentions ? [w.mentions] : [])))].slice(0, 10);
          const target = harness.target(kind);
          const requestId = newId();
          const response = await harness.app.inject({
            method: 'POST',
            url: commentsUrl(kind, target),
            payload: { content },
            headers: { ...bearer(author.token), 'x-request-id': requestId },
          });
          expect(response.statusCode).toBe(201);
          const comment = response.json().comment as { id: string; createdAt: string };

          const rows = await harness.mentionRows(kind, comment.id);
          expect(rows.map((row) => row.mentioned_user_id).sort()).toEqual([...expected].sort());
          const announced = (await harness.outboxEvents(requestId, 'comment.mention.created')).map((event) =>
            commentMentionCreated.data.parse(event.data),
          );
          expect(
            announced
              .map(({ mentionId, mentionedUserId, commentId }) => [mentionId, mentionedUserId, commentId])
              .sort(),
          ).toEqual(rows.map((row) => [row.id, row.mentioned_user_id, comment.id]).sort());
          const created = await harness.outboxEvents(requestId, 'comment.created');
          expect(created.map((event) => commentCreated.data.parse(event.data))).toEqual([
            {
              id: comment.id,
              targetType: kind,
              targetId: target,
              authorId: author.user.id,
              createdAt: comment.createdAt,
              parentId: null,
              targetOwnerId: expect.any(String),
              repliedToAuthorId: null,
              mentionedUserIds: [...expected],
            },
          ]);
        },
      ),
      { numRuns: RUNS },
    );
  });
});
