import { createDecipheriv, createECDH, createPublicKey, type ECDH, hkdfSync, randomBytes, verify } from 'node:crypto';

/**
 * The receiving side of Web Push, written from the RFCs with node:crypto alone, so that it checks the
 * sender's library (web-push) rather than sharing its code: RFC 8291 decryption and RFC 8292 VAPID.
 */

/** A browser's subscription keys: its P-256 pair and its 16-byte authentication secret. */
export interface ReceiverKeys {
  ecdh: ECDH;
  auth: Buffer;
  /** As `PushSubscription.toJSON().keys` gives them. */
  json: { p256dh: string; auth: string };
}

export function receiverKeys(): ReceiverKeys {
  const ecdh = createECDH('prime256v1');
  ecdh.generateKeys();
  const auth = randomBytes(16);
  return { ecdh, auth, json: { p256dh: ecdh.getPublicKey().toString('base64url'), auth: auth.toString('base64url') } };
}

/** Decrypts an `aes128gcm` body (RFC 8188 framing, RFC 8291 keys) of one record; throws on anything wrong. */
export function decryptAes128gcm(body: Buffer, { ecdh, auth }: ReceiverKeys): Buffer {
  if (body.length < 21) throw new Error('body shorter than its header');
  const salt = body.subarray(0, 16);
  const recordSize = body.readUInt32BE(16);
  const idLength = body[20]!;
  const senderKey = body.subarray(21, 21 + idLength);
  const record = body.subarray(21 + idLength);
  if (idLength !== 65) throw new Error(`keyid of ${idLength} bytes, not a P-256 public key`);
  if (record.length > recordSize) throw new Error('more than one record');
  const keyInfo = Buffer.concat([Buffer.from('WebPush: info\0'), ecdh.getPublicKey(), senderKey]);
  const ikm = Buffer.from(hkdfSync('sha256', ecdh.computeSecret(senderKey), auth, keyInfo, 32));
  const cek = Buffer.from(hkdfSync('sha256', ikm, salt, Buffer.from('Content-Encoding: aes128gcm\0'), 16));
  const nonce = Buffer.from(hkdfSync('sha256', ikm, salt, Buffer.from('Content-Encoding: nonce\0'), 12));
  const decipher = createDecipheriv('aes-128-gcm', cek, nonce);
  decipher.setAuthTag(record.subarray(record.length - 16));
  const padded = Buffer.concat([decipher.update(record.subarray(0, record.length - 16)), decipher.final()]);
  // The last record ends with the delimiter 0x02, then any zero padding.
  let end = padded.length - 1;
  while (end >= 0 && padded[end] === 0) end -= 1;
  if (padded[end] !== 2) throw new Error('no last-record delimiter');
  return padded.subarray(0, end);
}

export interface VapidClaims {
  aud: string;
  exp: number;
  sub: string;
}

/**
 * Checks an `Authorization: vapid t=…, k=…` header (RFC 8292): an ES256 JWT signed by `k`, for `origin`,
 * expiring within 24 hours; and `k` the application server key the subscription was made with, if known.
 * Gives the claims, or throws saying what is wrong.
 */
export function verifyVapid(
  header: string | undefined,
  origin: string,
  applicationServerKey?: string,
  now = Date.now(),
): VapidClaims & { k: string } {
  const match = /^vapid (.+)$/i.exec(header ?? '');
  if (!match) throw new Error('no vapid Authorization');
  const params = Object.fromEntries(match[1]!.split(',').map((part) => part.trim().split('=') as [string, string]));
  const { t, k } = params;
  if (!t || !k) throw new Error('vapid needs t and k');
  if (applicationServerKey !== undefined && k !== applicationServerKey)
    throw new Error('k is not the key the subscription was made with');
  const raw = Buffer.from(k, 'base64url');
  if (raw.length !== 65 || raw[0] !== 4) throw new Error('k is not an uncompressed P-256 key');
  const key = createPublicKey({
    key: {
      kty: 'EC',
      crv: 'P-256',
      x: raw.subarray(1, 33).toString('base64url'),
      y: raw.subarray(33).toString('base64url'),
    },
    format: 'jwk',
  });
  const [head, payload, signature] = t.split('.');
  if (!head || !payload || !signature) throw new Error('t is not a JWT');
  const { alg } = JSON.parse(Buffer.from(head, 'base64url').toString()) as { alg?: string };
  if (alg !== 'ES256') throw new Error(`alg ${alg}, not ES256`);
  if (
    !verify(
      'sha256',
      Buffer.from(`${head}.${payload}`),
      { key, dsaEncoding: 'ieee-p1363' },
      Buffer.from(signature, 'base64url'),
    )
  )
    throw new Error('bad signature');
  const claims = JSON.parse(Buffer.from(payload, 'base64url').toString()) as VapidClaims;
  if (claims.aud !== origin) throw new Error(`aud ${claims.aud}, not ${origin}`);
  const seconds = now / 1000;
  if (!(claims.exp > seconds && claims.exp <= seconds + 24 * 3600))
    throw new Error(`exp ${claims.exp} not within 24 h`);
  if (!/^(mailto:|https:)/.test(claims.sub ?? '')) throw new Error('sub is not a mailto: or https: URL');
  return { ...claims, k };
}
