import { describe, expect, it } from 'vitest';
import { mentionedNames } from '../src/mentions.js';

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
