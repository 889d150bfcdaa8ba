import { createHash } from 'node:crypto';
import type { FastifyRequest } from 'fastify';

/** JSON with every object's keys in order: the same body sent with other spacing or key order is the same request. */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([key, item]) => `${JSON.stringify(key)}:${canonicalJson(item)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? '';
}

/** The path without the query: the query string is not part of what a POST creates. */
function pathOf(request: FastifyRequest): string {
  const url = request.raw.url ?? request.url;
  const query = url.indexOf('?');
  return query === -1 ? url : url.slice(0, query);
}

/**
 * What makes two requests the same request: method, path and body as the client sent it (parsed, before
 * validation trims or drops anything).
 */
export function fingerprintOf(request: FastifyRequest): string {
  return createHash('sha256')
    .update(`${request.method}\n${pathOf(request)}\n`)
    .update(canonicalJson(request.body))
    .digest('hex');
}
