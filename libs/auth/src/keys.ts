import { generateKeyPairSync } from 'node:crypto';

/** A fresh Ed25519 key pair as PEM, for development start-up and tests. */
export function generateSigningKeyPair(): { publicKey: string; privateKey: string } {
  return generateKeyPairSync('ed25519', {
    publicKeyEncoding: { type: 'spki', format: 'pem' },
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
  });
}
