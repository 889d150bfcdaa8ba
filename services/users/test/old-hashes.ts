import { randomBytes, scryptSync } from 'node:crypto';

/** A hash as the service stored them before argon2id: scrypt N=2^14, r=8, p=1, of the NFKC form. */
export function oldCostHash(password: string): string {
  const salt = randomBytes(16);
  const key = scryptSync(password.normalize('NFKC'), salt, 32, { N: 16_384, r: 8, p: 1 });
  return ['scrypt', 16_384, 8, 1, salt.toString('base64'), key.toString('base64')].join('$');
}
