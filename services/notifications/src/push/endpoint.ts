import { ECDH } from 'node:crypto';
import { BlockList, isIPv4, isIPv6 } from 'node:net';

/** The longest endpoint accepted (docs/api.md §11.3). */
export const MAX_ENDPOINT_LENGTH = 2048;

/**
 * Addresses a push endpoint may not name unless tests allow it: loopback, private, link-local, and the
 * unspecified and shared ranges, so that subscribing cannot make the service post into its own network.
 */
const internalAddresses = new BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.168.0.0', 16],
] as const) {
  internalAddresses.addSubnet(network, prefix, 'ipv4');
}
for (const [network, prefix] of [
  ['::', 128],
  ['::1', 128],
  ['fc00::', 7],
  ['fe80::', 10],
] as const) {
  internalAddresses.addSubnet(network, prefix, 'ipv6');
}

/** Whether `hostname` (as `URL` spells it: IPv6 in brackets, IPv4 normalised) names an internal address. */
export function isInternalHost(hostname: string): boolean {
  const host = hostname.replace(/^\[(.*)\]$/, '$1').toLowerCase();
  if (host === 'localhost' || host.endsWith('.localhost')) return true;
  if (isIPv4(host)) return internalAddresses.check(host, 'ipv4');
  if (!isIPv6(host)) return false;
  // An IPv4 address written as IPv6 (::ffff:127.0.0.1, which URL spells ::ffff:7f00:1) is judged as IPv4.
  const mapped = /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(host);
  if (mapped) {
    const [high, low] = [parseInt(mapped[1]!, 16), parseInt(mapped[2]!, 16)];
    return internalAddresses.check(`${high >> 8}.${high & 255}.${low >> 8}.${low & 255}`, 'ipv4');
  }
  return internalAddresses.check(host, 'ipv6');
}

/** Why `endpoint` cannot be a push endpoint, or undefined when it can. */
export function endpointProblem(endpoint: string, allowPrivate: boolean): string | undefined {
  if (endpoint.length > MAX_ENDPOINT_LENGTH) return `must be at most ${MAX_ENDPOINT_LENGTH} characters`;
  let url: URL;
  try {
    url = new URL(endpoint);
  } catch {
    return 'must be a URL';
  }
  const protocols = allowPrivate ? ['https:', 'http:'] : ['https:'];
  if (!protocols.includes(url.protocol)) return 'must be an https URL';
  if (url.username !== '' || url.password !== '') return 'must not carry credentials';
  if (!allowPrivate && isInternalHost(url.hostname)) return 'must not name a loopback, private or link-local host';
  return undefined;
}

/** The bytes of a base64url string (padding allowed), or undefined when it is not one. */
export function fromBase64Url(value: string): Buffer | undefined {
  if (!/^[A-Za-z0-9_-]*={0,2}$/.test(value)) return undefined;
  return Buffer.from(value.replace(/=+$/, ''), 'base64url');
}

/** Whether `value` is an uncompressed P-256 public key (65 bytes, a point of the curve), base64url. */
export function isP256PublicKey(value: string): boolean {
  const bytes = fromBase64Url(value);
  if (bytes?.length !== 65 || bytes[0] !== 4) return false;
  try {
    ECDH.convertKey(bytes, 'prime256v1');
    return true;
  } catch {
    return false;
  }
}

/** Whether `value` is a 16-byte authentication secret (RFC 8291), base64url. */
export function isAuthSecret(value: string): boolean {
  return fromBase64Url(value)?.length === 16;
}
