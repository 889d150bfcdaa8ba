import { TOKEN_ALGORITHM } from './plugin.js';
import { createSigner } from 'fast-jwt';

export interface TokenSettings {
  privateKey: string;
  issuer: string;
  audience: string;
  ttlSeconds: number;
}

/** Whose token it is, and, for a token of a session, which session and since when (seconds since the epoch). */
export interface TokenSubject {
  id: string;
  username: string;
  sessionId?: string;
  issuedAt?: number;
}

export type IssueToken = (subject: TokenSubject) => string;

/**
 * Signs access tokens. Only the users service holds the private key that makes them valid; tests make
 * keys of their own with `generateSigningKeyPair`. A token of a session carries its id (`sid`) and is
 * signed as of the `issuedAt` given, so the same subject and time always give the same token (Ed25519
 * signatures are deterministic): a refresh answered again within its grace answers the same token.
 */
export function tokenIssuer({ privateKey, issuer, audience, ttlSeconds }: TokenSettings): IssueToken {
  const sign = createSigner({
    key: privateKey,
    algorithm: TOKEN_ALGORITHM,
    iss: issuer,
    aud: audience,
    expiresIn: ttlSeconds * 1000,
  });
  return ({ id, username, sessionId, issuedAt }) =>
    sign({
      sub: id,
      username,
      ...(sessionId === undefined ? {} : { sid: sessionId }),
      ...(issuedAt === undefined ? {} : { iat: issuedAt }),
    });
}
