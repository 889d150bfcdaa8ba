import { randomBytes } from 'node:crypto';
import { type Algorithm, hash, type Options, verify } from '@node-rs/argon2';
import { isScryptHash, verifyScrypt } from './legacy-scrypt.js';

/**
 * argon2id at OWASP's first choice: 19 MiB, 2 passes, 1 lane. Of OWASP's two current settings it is the
 * cheaper by far: here about 20 ms of CPU per hash against about 450 ms (and 128 MiB) for scrypt at N=2^17,
 * and every registration and login pays it.
 */
const COST = {
  // The package's enums are `const enum`s, which isolated modules cannot inline: 2 is Argon2id.
  algorithm: 2 as Algorithm.Argon2id,
  memoryCost: 19_456,
  timeCost: 2,
  parallelism: 1,
  outputLen: 32,
} satisfies Options;

/** How every hash at today's cost begins (PHC string format; the parameters travel with the hash). */
const CURRENT = `$argon2id$v=19$m=${COST.memoryCost},t=${COST.timeCost},p=${COST.parallelism}$`;

/** Compatible forms of a password (a ligature, full-width letters) hash the same. */
const normalized = (password: string) => password.normalize('NFKC');

export function hashPassword(password: string): Promise<string> {
  return hash(normalized(password), COST);
}

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  if (isScryptHash(stored)) return verifyScrypt(normalized(password), stored);
  if (!stored.startsWith('$argon2')) return false;
  // A damaged hash is refused by the library: it matches no password.
  return verify(stored, normalized(password)).catch(() => false);
}

/** Whether a hash predates today's algorithm or cost, and so is replaced once its password is known. */
export const needsRehash = (stored: string) => !stored.startsWith(CURRENT);

/** A real hash of nothing, checked when the username is unknown so both failures take as long. */
export const decoyHash = await hashPassword(randomBytes(16).toString('hex'));
