import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { mentionable, mentionedNames, type Named, withinCap } from '../src/mentions.js';

describe('mentionedNames', () => {
  it.each([
    ['a name alone', '@ada', ['ada']],
    ['a name in a sentence', 'lovely tones, @ada!', ['ada']],
    ['names at the start and the end of lines', '@ada says hi\nto @grace', ['ada', 'grace']],
    ['names in parentheses', '(@ada)', ['ada']],
    ['a name before a comma', '@ada, look', ['ada']],
    ['a name before a full stop', 'ask @ada.', ['ada']],
    ['a name before a hyphen', '@ada-like', ['ada']],
    ['a name after a tab', '\t@ada', ['ada']],
    ['a name in quotes', '"@ada"', ['ada']],
    ['digits and underscores', '@ada_99 @_x_ @007', ['ada_99', '_x_', '007']],
    ['a non-ASCII letter before the @', 'é@ada', ['ada']],
    ['a non-ASCII letter after the name', '@adaé', ['ada']],
    ['an emoji either side', '📷@ada📷', ['ada']],
    ['a doubled @', '@@ada', ['ada']],
    ['a name of 3 characters', '@abc', ['abc']],
    ['a name of 30 characters', `@${'a'.repeat(30)}`, ['a'.repeat(30)]],
  ])('finds %s', (_case, text, names) => {
    expect(mentionedNames(text)).toEqual(names);
  });

  it.each([
    ['an email address', 'write to bob@example.com'],
    ['an @ after a letter', 'ada@grace'],
    ['an @ after a digit', '1@ada'],
    ['an @ after an underscore', '_@ada'],
    ['a name of 2 characters', '@ab'],
    ['a name of 31 characters', `@${'a'.repeat(31)}`],
    ['an @ alone', 'meet @ noon'],
    ['an @ before punctuation', '@.ada'],
    ['a name with a non-ASCII letter inside', '@zoë'],
    ['empty text', ''],
  ])('finds nothing in %s', (_case, text) => {
    expect(mentionedNames(text)).toEqual([]);
  });

  it('stops at the second @ of @ada@grace: the second is preceded by a name character', () => {
    expect(mentionedNames('@ada@grace')).toEqual(['ada']);
  });

  it('lower-cases names and keeps each once, where it first appears', () => {
    expect(mentionedNames('@Grace and @ada, then @ADA and @grace again')).toEqual(['grace', 'ada']);
  });

  it('returns every distinct name in text order: the cap of ten applies to users who exist', () => {
    const names = Array.from({ length: 12 }, (_, index) => `user_${String(index).padStart(2, '0')}`);
    expect(mentionedNames(names.map((name) => `@${name}`).join(' '))).toEqual(names);
  });
});

describe('mentionable', () => {
  const AUTHOR = 'author';
  // Each name is nobody (null), or a user: the author, one who blocks the author, or another.
  const world = fc.uniqueArray(fc.stringMatching(/^[a-z]{3,6}$/), { maxLength: 40 }).chain((names) =>
    fc.record({
      names: fc.constant(names),
      users: fc.tuple(
        ...names.map(() =>
          fc.option(fc.record({ isAuthor: fc.boolean(), blocksAuthor: fc.boolean() }, { requiredKeys: [] }), {
            nil: null,
          }),
        ),
      ),
      knownAtFirst: fc.tuple(...names.map(() => fc.boolean())),
      before: fc.uniqueArray(fc.nat({ max: 39 }), { maxLength: 10 }),
      batch: fc.integer({ min: 1, max: 5 }),
    }),
  );

  it('asks about names until the first ten are settled, and then gives what knowing every name would give', () => {
    fc.assert(
      fc.property(world, ({ names, users, knownAtFirst, before, batch }) => {
        const truth = new Map<string, Named>(
          names.map((name, index) => {
            const user = users[index] ?? null;
            return [
              name,
              user && { id: user.isAuthor ? AUTHOR : `user-${index}`, blocksAuthor: user.blocksAuthor ?? false },
            ];
          }),
        );
        const mentionedBefore = new Set(before.map((index) => `user-${index}`));
        // What the comment mentions as the rules read: every existing user but the author and those who block them,
        // within the cap.
        const expected = withinCap(
          names.flatMap((name) => {
            const user = truth.get(name)!;
            return user && user.id !== AUTHOR && !user.blocksAuthor ? [user.id] : [];
          }),
          mentionedBefore,
        );
        const named = new Map(names.filter((_, index) => knownAtFirst[index]).map((name) => [name, truth.get(name)!]));
        for (let asked = 0; ; asked++) {
          const { ids, unknown } = mentionable(names, named, AUTHOR, mentionedBefore);
          if (unknown.length === 0) {
            expect(ids).toEqual(expected);
            return;
          }
          expect(asked).toBeLessThanOrEqual(names.length);
          for (const name of unknown.slice(0, batch)) named.set(name, truth.get(name)!);
        }
      }),
      { numRuns: 500 },
    );
  });

  it('asks about no name after the tenth user it mentions', () => {
    const names = Array.from({ length: 12 }, (_, index) => `name${index}`);
    const named = new Map<string, Named>(
      names.slice(0, 10).map((name, index) => [name, { id: `user-${index}`, blocksAuthor: false }]),
    );
    expect(mentionable(names, named, AUTHOR, new Set())).toEqual({
      ids: names.slice(0, 10).map((_, index) => `user-${index}`),
      unknown: [],
    });
  });
});
