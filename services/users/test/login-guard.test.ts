import { describe, expect, it } from 'vitest';
import { type LoginAttempt, loginGuard } from '../src/login-guard.js';

const guard = () => loginGuard({ failuresPerUsernameAndAddress: 2, failuresPerAddress: 3, windowMs: 60_000, now: () => 0 });

function admitted(attempt: LoginAttempt) {
  if (attempt.refused) throw new Error(`refused for ${attempt.retryAfterMs} ms`);
  return attempt;
}

describe('loginGuard', () => {
  it('refuses a username from the address that failed, not from another, and matches it in any case', () => {
    const logins = guard();
    logins.begin('Ada', '198.51.100.1');
    logins.begin('ada', '198.51.100.1');
    expect(logins.begin('ADA', '198.51.100.1')).toEqual({ refused: true, retryAfterMs: 60_000 });
    expect(logins.begin('ada', '198.51.100.2').refused).toBe(false);
  });

  it('refuses an address that failed too often across usernames', () => {
    const logins = guard();
    for (const name of ['a', 'b', 'c']) logins.begin(name, '198.51.100.1');
    expect(logins.begin('d', '198.51.100.1').refused).toBe(true);
    expect(logins.begin('d', '198.51.100.2').refused).toBe(false);
  });

  it('clears the pair at a success, but keeps the address’s other failures', () => {
    const logins = guard();
    logins.begin('a', '198.51.100.1');
    admitted(logins.begin('b', '198.51.100.1'));
    admitted(logins.begin('b', '198.51.100.1')).succeeded();
    // b starts afresh; the address has failed twice (a, b) and its success was not one more.
    admitted(logins.begin('b', '198.51.100.1'));
    expect(logins.begin('b', '198.51.100.1').refused).toBe(true);
  });

  it('does not count an abandoned attempt', () => {
    const logins = guard();
    for (let i = 0; i < 5; i++) admitted(logins.begin('a', '198.51.100.1')).abandoned();
    expect(logins.begin('a', '198.51.100.1').refused).toBe(false);
  });
});
