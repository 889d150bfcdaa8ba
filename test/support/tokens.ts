import { createHmac, createPrivateKey, randomUUID, sign } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { generateSigningKeyPair, tokenIssuer } from '@recipes/auth';

/** What the services expect unless configured otherwise (`JWT_ISSUER`, `JWT_AUDIENCE`). */
const ISSUER = 'recipes-users';
const AUDIENCE = 'recipes-api';

export interface TokenSubject {
  id: string;
  username: string;
}

const b64url = (value: unknown) =>
  Buffer.from(typeof value === 'string' ? value : JSON.stringify(value)).toString('base64url');
const now = () => Math.floor(Date.now() / 1000);

/**
 * Tokens for a system started by `startSystem({ name })`: valid ones signed with its own key pair
 * (written under `.keys/<name>/`), and every kind of forgery a verifier must refuse.
 */
export function systemTokens(systemName: string) {
  const privateKey = readFileSync(`.keys/${systemName}/jwt-private.pem`, 'utf8');
  const publicKey = readFileSync(`.keys/${systemName}/jwt-public.pem`, 'utf8');
  const attacker = generateSigningKeyPair();
  const issue = tokenIssuer({ privateKey, issuer: ISSUER, audience: AUDIENCE, ttlSeconds: 3600 });

  const claims = (subject: TokenSubject, overrides: Record<string, unknown> = {}) => ({
    sub: subject.id,
    username: subject.username,
    iat: now(),
    exp: now() + 3600,
    iss: ISSUER,
    aud: AUDIENCE,
    ...overrides,
  });

  /** Signs any header and payload with Ed25519, so that only the part under test is wrong. */
  const signed = (header: Record<string, unknown>, payload: Record<string, unknown>, key = privateKey) => {
    const input = `${b64url(header)}.${b64url(payload)}`;
    return `${input}.${sign(null, Buffer.from(input), createPrivateKey(key)).toString('base64url')}`;
  };
  const unsigned = (alg: string, subject: TokenSubject) => `${b64url({ alg, typ: 'JWT' })}.${b64url(claims(subject))}.`;

  /** Each forgery of a token for `subject`; every one must be refused with 401. */
  const forgeries: Record<string, (subject: TokenSubject) => string> = {
    'alg none': (subject) => unsigned('none', subject),
    'alg None': (subject) => unsigned('None', subject),
    'alg NONE': (subject) => unsigned('NONE', subject),
    'HS256 signed with the public key': (subject) => {
      const input = `${b64url({ alg: 'HS256', typ: 'JWT' })}.${b64url(claims(subject))}`;
      return `${input}.${createHmac('sha256', publicKey).update(input).digest('base64url')}`;
    },
    // A genuine token of someone else, its payload swapped for the subject's.
    'tampered payload': (subject) => {
      const [header, , signature] = issue({ id: randomUUID(), username: 'mallory' }).split('.');
      return `${header}.${b64url(claims(subject))}.${signature}`;
    },
    'bad signature': (subject) => {
      const [header, payload, signature] = issue(subject).split('.') as [string, string, string];
      const bytes = Buffer.from(signature, 'base64url');
      bytes[0]! ^= 0xff;
      return `${header}.${payload}.${bytes.toString('base64url')}`;
    },
    'signed by another key': (subject) => signed({ alg: 'EdDSA', typ: 'JWT' }, claims(subject), attacker.privateKey),
    expired: (subject) =>
      signed({ alg: 'EdDSA', typ: 'JWT' }, claims(subject, { iat: now() - 7200, exp: now() - 3600 })),
    'not yet valid': (subject) => signed({ alg: 'EdDSA', typ: 'JWT' }, claims(subject, { nbf: now() + 3600 })),
    'wrong iss': (subject) => signed({ alg: 'EdDSA', typ: 'JWT' }, claims(subject, { iss: 'someone-else' })),
    'wrong aud': (subject) => signed({ alg: 'EdDSA', typ: 'JWT' }, claims(subject, { aud: 'another-api' })),
    'embedded jwk header': (subject) => {
      const { kty, crv, x } = createPrivateKey(attacker.privateKey).export({ format: 'jwk' });
      return signed({ alg: 'EdDSA', typ: 'JWT', jwk: { kty, crv, x } }, claims(subject), attacker.privateKey);
    },
    garbage: () => 'abc.def.ghi',
  };

  return { valid: (subject: TokenSubject) => issue(subject), forgeries };
}

export type SystemTokens = ReturnType<typeof systemTokens>;
