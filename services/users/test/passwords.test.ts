import { describe, expect, it } from 'vitest';
import { hashPassword, verifyPassword } from '../src/passwords.js';

describe('passwords', () => {
  it('verifies the right password only', async () => {
    const hash = await hashPassword('correct horse');
    expect(await verifyPassword('correct horse', hash)).toBe(true);
    expect(await verifyPassword('correct horsE', hash)).toBe(false);
  });

  it('salts every hash and keeps the password out of it', async () => {
    const [a, b] = await Promise.all([hashPassword('same password'), hashPassword('same password')]);
    expect(a).not.toBe(b);
    expect(a).toMatch(/^scrypt\$16384\$8\$1\$/);
    expect(a).not.toContain('same password');
  });

  it('refuses a damaged or foreign hash', async () => {
    const hash = await hashPassword('secret password');
    expect(await verifyPassword('secret password', hash.slice(0, -4) + 'AAAA')).toBe(false);
    expect(await verifyPassword('secret password', 'bcrypt$whatever')).toBe(false);
    expect(await verifyPassword('secret password', '')).toBe(false);
  });
});
