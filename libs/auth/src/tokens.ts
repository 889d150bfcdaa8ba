import { TOKEN_ALGORITHM } from './plugin.js';
import { createSigner } from 'fast-jwt';

export interface TokenSettings {
  privateKey: string;
  issuer: string;
  audience: string;
  ttlSeconds: number;
}

export type IssueToken = (user: { id: string; username: string }) => string;

/**
 * Signs access tokens. Only the users service holds the private key that makes them valid; tests make
 * keys of their own with `generateSigningKeyPair`.
 */
export function tokenIssuer({ privateKey, issuer, audience, ttlSeconds }: TokenSettings): IssueToken {
  const sign = createSigner({ key: privateKey, algorithm: TOKEN_ALGORITHM, iss: issuer, aud: audience, expiresIn: ttlSeconds * 1000 });
  return (user) => sign({ sub: user.id, username: user.username });
}
