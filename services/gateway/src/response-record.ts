import { appendFileSync } from 'node:fs';
import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { App } from '@recipes/http';

/**
 * Where the gateway appends every response to `/api/...` it sends, when set: a test setting, read by the
 * system tests' conformance check (test/support/conformance.ts), never set in production.
 */
export const RECORD_VARIABLE = 'GATEWAY_RECORD_RESPONSES_TO';

/** One line of the record file. */
export interface RecordedResponse {
  method: string;
  /** The request target as the client sent it. */
  url: string;
  /** The path as the gateway routes it (see request-path.ts), when it reads as one. */
  path?: string;
  status: number;
  contentType?: string;
  requestId?: string;
  /** The body as sent, as UTF-8 text; cut at `MAX_BODY_BYTES` (then `complete` is false). */
  body: string;
  /** False when the body was cut short, or the response ended before its body did (a client gone, a stream). */
  complete: boolean;
  /** The response's headers, as sent. */
  headers?: Record<string, string>;
  /**
   * The request's headers (a token replaced by a placeholder) and body as UTF-8 text, for a check of the request too.
   */
  request?: { headers: Record<string, string>; body: string; utf8: boolean };
}

/** Headers as one string each; a token is no one's business in a test's record, only that one was sent. */
function flatHeaders(headers: Record<string, unknown>): Record<string, string> {
  const flat: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined) continue;
    flat[name] =
      name === 'authorization' ? String(value).replace(/^(\S+)\s.*$/s, '$1 recorded') : [value].flat().join(', ');
  }
  return flat;
}

/** The request as recorded: its body as text, and whether its bytes were UTF-8 at all (JSON must be). */
function requestRecord(headers: Record<string, unknown>, body: unknown): NonNullable<RecordedResponse['request']> {
  const bytes = Buffer.isBuffer(body) ? body : Buffer.alloc(0);
  const text = bytes.toString('utf8');
  return { headers: flatHeaders(headers), body: text, utf8: Buffer.from(text, 'utf8').equals(bytes) };
}

const MAX_BODY_BYTES = 1024 * 1024;

/**
 * Appends each response of `app`'s routes (an encapsulated context: the proxy's) to `file` as one JSON line,
 * once its body has been sent. The body passes through unchanged: a streamed one is copied as it goes.
 */
export function recordResponses(app: App, file: string): void {
  app.addHook('onSend', async (request, reply, payload) => {
    const contentType = reply.getHeader('content-type');
    const { routed } = request;
    const record = (body: string, complete: boolean) => {
      const line: RecordedResponse = {
        method: request.method,
        url: request.url,
        ...(routed ? { path: routed.target.path } : {}),
        status: reply.statusCode,
        ...(contentType === undefined ? {} : { contentType: String(contentType) }),
        requestId: request.id,
        body,
        complete,
        headers: flatHeaders(reply.getHeaders()),
        request: requestRecord(request.headers, request.body),
      };
      appendFileSync(file, `${JSON.stringify(line)}\n`);
    };

    if (!(payload instanceof Readable)) {
      const text =
        payload === null || payload === undefined
          ? ''
          : Buffer.isBuffer(payload)
            ? payload.toString('utf8')
            : String(payload);
      record(text, true);
      return payload;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    const copy = new Transform({
      transform(chunk: Buffer, _encoding, done) {
        if (size < MAX_BODY_BYTES) chunks.push(chunk);
        size += chunk.length;
        done(null, chunk);
      },
    });
    pipeline(payload, copy).then(
      () => record(Buffer.concat(chunks).subarray(0, MAX_BODY_BYTES).toString('utf8'), size <= MAX_BODY_BYTES),
      () => record(Buffer.concat(chunks).subarray(0, MAX_BODY_BYTES).toString('utf8'), false),
    );
    return copy;
  });
}
