import { appendFileSync } from 'node:fs';
import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { App } from '@recipes/http';
import { readRequestPath } from './request-path.js';

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
}

const MAX_BODY_BYTES = 1024 * 1024;

/**
 * Appends each response of `app`'s routes (an encapsulated context: the proxy's) to `file` as one JSON line,
 * once its body has been sent. The body passes through unchanged: a streamed one is copied as it goes.
 */
export function recordResponses(app: App, file: string): void {
  app.addHook('onSend', async (request, reply, payload) => {
    const contentType = reply.getHeader('content-type');
    const routed = readRequestPath(request.url);
    const record = (body: string, complete: boolean) => {
      const line: RecordedResponse = {
        method: request.method,
        url: request.url,
        ...(routed ? { path: routed.path } : {}),
        status: reply.statusCode,
        ...(contentType === undefined ? {} : { contentType: String(contentType) }),
        requestId: request.id,
        body,
        complete,
      };
      appendFileSync(file, `${JSON.stringify(line)}\n`);
    };

    if (!(payload instanceof Readable)) {
      const text = payload === null || payload === undefined ? '' : Buffer.isBuffer(payload) ? payload.toString('utf8') : String(payload);
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
