import { scrypt, type ScryptOptions, timingSafeEqual } from 'node:crypto';

const KEY_LENGTH = 32;

/** `scrypt$N$r$p$salt$key`, as passwords were hashed before argon2id. */
export const isScryptHash = (stored: string) => stored.startsWith('scrypt$');

function derive(password: string, salt: Buffer, options: ScryptOptions): Promise<Buffer> {
  // scrypt throws parameters it refuses at once: inside the executor, that rejects.
  return new Promise((resolve, reject) =>
    scrypt(password, salt, KEY_LENGTH, options, (error, key) => (error ? reject(error) : resolve(key))),
  );
}

/**
 * Checks `password` (already normalized, as it was when hashed) against a scrypt hash. Only verified, never
 * made: such a hash is replaced at its owner's next login.
 */
export async function verifyScrypt(password: string, stored: string): Promise<boolean> {
  const [scheme, n, r, p, salt, key] = stored.split('$');
  if (scheme !== 'scrypt' || !salt || !key) return false;
  const expected = Buffer.from(key, 'base64');
  // Parameters scrypt refuses match no password, rather than failing the login with a 500.
  const actual = await derive(password, Buffer.from(salt, 'base64'), {
    N: Number(n),
    r: Number(r),
    p: Number(p),
  }).catch(() => undefined);
  return actual !== undefined && actual.length === expected.length && timingSafeEqual(actual, expected);
}
