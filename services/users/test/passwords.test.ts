import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decoyHash, hashPassword, needsRehash, verifyPassword } from '../src/passwords.js';
import { oldCostHash } from './old-hashes.js';

/** OWASP's first choice today: argon2id, 19 MiB, 2 passes, 1 lane. */
const TODAYS_COST = /^\$argon2id\$v=19\$m=19456,t=2,p=1\$/;

describe('passwords', () => {
  it('verifies the right password only', async () => {
    const hash = await hashPassword('correct horse');
    expect(await verifyPassword('correct horse', hash)).toBe(true);
    expect(await verifyPassword('correct horsE', hash)).toBe(false);
  });

  it('salts every hash, at today’s cost, and keeps the password out of it', async () => {
    const [a, b] = await Promise.all([hashPassword('same password'), hashPassword('same password')]);
    expect(a).not.toBe(b);
    expect(a).toMatch(TODAYS_COST);
    expect(needsRehash(a)).toBe(false);
    expect(a).not.toContain('same password');
  });

  it('checks unknown usernames against a decoy at today’s cost', () => {
    expect(decoyHash).toMatch(TODAYS_COST);
  });

  it('refuses a damaged or foreign hash', async () => {
    const hash = await hashPassword('secret password');
    expect(await verifyPassword('secret password', hash.slice(0, -4) + 'AAAA')).toBe(false);
    expect(await verifyPassword('secret password', hash.slice(0, 40))).toBe(false);
    expect(await verifyPassword('secret password', 'bcrypt$whatever')).toBe(false);
    expect(await verifyPassword('secret password', 'scrypt$3$8$1$AAAA$AAAA')).toBe(false);
    expect(await verifyPassword('secret password', '')).toBe(false);
  });

  it('still verifies a hash of the old cost, and marks it for replacing', async () => {
    const old = oldCostHash('ﬁlm password');
    expect(await verifyPassword('ﬁlm password', old)).toBe(true);
    expect(await verifyPassword('film password', old)).toBe(true);
    expect(await verifyPassword('ﬁlm passworD', old)).toBe(false);
    expect(needsRehash(old)).toBe(true);
    expect(needsRehash('$argon2id$v=19$m=4096,t=3,p=1$c2FsdHNhbHQ$aGFzaGhhc2g')).toBe(true);
  });

  // Each run hashes once and verifies twice, some 60 ms: a few runs only.
  const password = fc.string({ unit: 'binary', minLength: 8, maxLength: 128 });

  it('round-trips any password of 8 to 128 characters, and refuses any other', async () => {
    await fc.assert(
      fc.asyncProperty(password, password, async (right, other) => {
        fc.pre(right.normalize('NFKC') !== other.normalize('NFKC'));
        const hash = await hashPassword(right);
        expect(await verifyPassword(right, hash)).toBe(true);
        expect(await verifyPassword(other, hash)).toBe(false);
      }),
      { numRuns: 12 },
    );
  });
});
