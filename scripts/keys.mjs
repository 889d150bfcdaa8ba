// A development Ed25519 key pair for token signing, and a VAPID pair for Web Push, written once.
// As a command: `node scripts/keys.mjs DIR`, which also writes the VAPID pair as `push.env` (KEY=value lines), the
// file a Kubernetes overlay's secretGenerator reads (docs/operations.md, "Running on Kubernetes").
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { createECDH, generateKeyPairSync } from 'node:crypto';

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

/**
 * A new VAPID pair (RFC 8292: P-256, both halves base64url, the public one uncompressed), as the notifications service
 * reads it.
 */
export function vapidPair() {
  const ecdh = createECDH('prime256v1');
  ecdh.generateKeys();
  return {
    PUSH_VAPID_PUBLIC_KEY: ecdh.getPublicKey().toString('base64url'),
    // 32 bytes, with the leading zeros a small key loses.
    PUSH_VAPID_PRIVATE_KEY: Buffer.from(ecdh.getPrivateKey('hex').padStart(64, '0'), 'hex').toString('base64url'),
  };
}

/**
 * A development VAPID pair in `file`, made once; gives it as the notifications service reads it, and
 * whether it was made now.
 */
export function ensureVapidKeys(file) {
  if (existsSync(file)) return { ...JSON.parse(readFileSync(file, 'utf8')), generated: false };
  const keys = vapidPair();
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, `${JSON.stringify(keys, null, 2)}\n`, { mode: 0o600 });
  return { ...keys, generated: true };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const dir = resolve(process.argv[2] ?? '.keys');
  if (ensureKeyPair(`${dir}/jwt-private.pem`, `${dir}/jwt-public.pem`))
    console.log(`keys: generated a key pair in ${dir}`);
  const vapid = ensureVapidKeys(`${dir}/vapid.json`);
  if (vapid.generated) console.log(`keys: generated a VAPID pair in ${dir}`);
  if (!existsSync(`${dir}/push.env`)) {
    const lines = ['PUSH_VAPID_PUBLIC_KEY', 'PUSH_VAPID_PRIVATE_KEY'].map((key) => `${key}=${vapid[key]}\n`);
    writeFileSync(`${dir}/push.env`, lines.join(''), { mode: 0o600 });
  }
}
