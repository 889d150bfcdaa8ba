import type { FastifyInstance, FastifyRequest } from 'fastify';
import { badRequest } from './problem.js';

/**
 * How deep a JSON body may nest objects and arrays (`{}` is 1, `{"a":[{}]}` is 3). The API's deepest body
 * is three levels; 32 leaves room for any body it will grow, while keeping everything that walks a body
 * afterwards (validation, idempotency fingerprints, logging) far from any recursion limit.
 */
export const JSON_DEPTH_LIMIT = 32;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_BRACE = 0x7b;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACE = 0x7d;
const CLOSE_BRACKET = 0x5d;

/** Whether the quote at `at` is escaped: preceded by an odd number of backslashes. */
function isEscaped(text: string, at: number): boolean {
  let backslashes = 0;
  while (text.charCodeAt(at - 1 - backslashes) === BACKSLASH) backslashes++;
  return backslashes % 2 === 1;
}

/**
 * Whether the JSON text opens more than `limit` objects and arrays at once: one pass over the text, strings
 * passed over with indexOf (most of a body's bytes, at native speed). Text that is not JSON gets an answer
 * too; the parser refuses it afterwards.
 */
export function nestsDeeperThan(text: string, limit: number): boolean {
  let depth = 0;
  for (let at = 0; at < text.length; at++) {
    const char = text.charCodeAt(at);
    if (char === QUOTE) {
      let end = text.indexOf('"', at + 1);
      while (end !== -1 && isEscaped(text, end)) end = text.indexOf('"', end + 1);
      if (end === -1) return false;
      at = end;
    } else if (char === OPEN_BRACE || char === OPEN_BRACKET) {
      if (++depth > limit) return true;
    } else if (char === CLOSE_BRACE || char === CLOSE_BRACKET) {
      depth--;
    }
  }
  return false;
}

/** A body parser in Fastify's callback form, over the body read as text. */
type TextBodyParser = (
  request: FastifyRequest,
  body: string,
  done: (error: Error | null, body?: unknown) => void,
) => void;

/**
 * The `application/json` parser of every app: a body nested deeper than JSON_DEPTH_LIMIT is 400 before it
 * is parsed, so nothing after it ever walks one; any other body goes to Fastify's own parser
 * (secure-json-parse, which refuses `__proto__` and `constructor.prototype` keys: 400 as well).
 */
export function depthLimitedJsonParser(app: FastifyInstance): TextBodyParser {
  const parse = app.getDefaultJsonParser('error', 'error') as TextBodyParser;
  const detail = `The body is nested too deeply: at most ${JSON_DEPTH_LIMIT} levels of objects and arrays`;
  return (request, body, done) => {
    if (nestsDeeperThan(body, JSON_DEPTH_LIMIT)) return done(badRequest(detail, [{ path: 'body', message: detail }]));
    parse(request, body, done);
  };
}
