import { createHash } from 'node:crypto';
import { pathOf } from '@recipes/http';
import type { FastifyRequest } from 'fastify';

/** A value still to be written, or the punctuation between values. */
type Pending = { value: unknown } | { text: string };

const byCodeUnits = ([a]: [string, unknown], [b]: [string, unknown]) => (a < b ? -1 : a > b ? 1 : 0);

/**
 * JSON with every object's keys in order: the same body sent with other spacing or key order is the same
 * request. Written with a stack of its own rather than by recursion, so that no value, however deep,
 * overflows the call stack (the body parser refuses deep bodies, but this must not depend on it).
 */
export function canonicalJson(value: unknown): string {
  const parts: string[] = [];
  const pending: Pending[] = [{ value }];
  // Last in, first written: each container pushes its closing bracket, then its items from the last.
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    if ('text' in next) {
      parts.push(next.text);
      continue;
    }
    const current = next.value;
    if (Array.isArray(current)) {
      parts.push('[');
      pending.push({ text: ']' });
      for (let index = current.length - 1; index >= 0; index--) {
        pending.push({ value: current[index] });
        if (index > 0) pending.push({ text: ',' });
      }
    } else if (current !== null && typeof current === 'object') {
      parts.push('{');
      pending.push({ text: '}' });
      const entries = Object.entries(current).sort(byCodeUnits);
      for (let index = entries.length - 1; index >= 0; index--) {
        const [key, item] = entries[index]!;
        pending.push({ value: item }, { text: `${index > 0 ? ',' : ''}${JSON.stringify(key)}:` });
      }
    } else {
      parts.push(JSON.stringify(current) ?? '');
    }
  }
  return parts.join('');
}

/**
 * What makes two requests the same request: method, path and body as the client sent it (parsed, before
 * validation trims or drops anything).
 */
export function fingerprintOf(request: FastifyRequest): string {
  return createHash('sha256')
    .update(`${request.method}\n${pathOf(request.raw.url ?? request.url)}\n`)
    .update(canonicalJson(request.body))
    .digest('hex');
}
