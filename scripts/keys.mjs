// A development Ed25519 key pair for token signing, written once. As a command: `node scripts/keys.mjs DIR`.
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { generateKeyPairSync } from 'node:crypto';

export function ensureKeyPair(privateKeyFile, publicKeyFile) {
  if (existsSync(privateKeyFile) && existsSync(publicKeyFile)) return false;
  const { publicKey, privateKey } = generateKeyPairSync('ed25519', {
    publicKeyEncoding: { type: 'spki', format: 'pem' },
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
  });
  mkdirSync(dirname(privateKeyFile), { recursive: true });
  writeFileSync(privateKeyFile, privateKey, { mode: 0o600 });
  writeFileSync(publicKeyFile, publicKey);
  return true;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const dir = resolve(process.argv[2] ?? '.keys');
  if (ensureKeyPair(`${dir}/jwt-private.pem`, `${dir}/jwt-public.pem`)) console.log(`keys: generated a key pair in ${dir}`);
}
