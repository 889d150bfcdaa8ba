import http from 'node:http';
import { problemSchema, type UnauthorizedReason } from '@recipes/contracts';
import { codeFor } from '@recipes/http';
import { expectBearerChallenge } from '@recipes/testing';
import { Agent } from 'undici';
import { expect } from 'vitest';

/** A request as sent on the wire: the path exactly as written (raw bytes, `..`, bad escapes and all). */
export interface RawRequest {
  method: string;
  path: string;
  headers?: Record<string, string>;
  body?: Buffer;
  /** Send the body with Transfer-Encoding: chunked instead of a Content-Length. */
  chunked?: boolean;
}

export interface RawResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
}

/**
 * HTTP/1.1 over a keep-alive pool of `connections` sockets, with node:http rather than fetch: fetch
 * normalizes paths (`..`, escapes), refuses some methods with bodies and cannot send a chunked body of known size.
 */
export function rawClient(baseUrl: string, connections = 16) {
  const { hostname, port } = new URL(baseUrl);
  const agent = new http.Agent({ keepAlive: true, maxSockets: connections });

  function send({ method, path, headers = {}, body, chunked = false }: RawRequest): Promise<RawResponse> {
    return new Promise((resolve, reject) => {
      const outgoing = { ...headers };
      // Explicit framing: node:http sends a DELETE body written in parts with no framing at all otherwise.
      if (body) outgoing[chunked ? 'transfer-encoding' : 'content-length'] = chunked ? 'chunked' : String(body.length);
      let answered = false;
      const request = http.request({ agent, hostname, port, method, path, headers: outgoing }, (response) => {
        answered = true;
        // An event stream never ends by itself: its answer is its head, and the connection is let go.
        if (isEventStream(response.headers['content-type'])) {
          response.destroy();
          resolve({ status: response.statusCode ?? 0, headers: response.headers, text: '' });
          return;
        }
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () =>
          resolve({
            status: response.statusCode ?? 0,
            headers: response.headers,
            text: Buffer.concat(chunks).toString('utf8'),
          }),
        );
        response.on('error', reject);
      });
      // A server may answer (413) and close before the whole body is written; the answer is what counts.
      request.on('error', (error) => (answered ? undefined : reject(error)));
      if (body && chunked) {
        for (let offset = 0; offset < body.length; offset += 16 * 1024)
          request.write(body.subarray(offset, offset + 16 * 1024));
        request.end();
      } else {
        request.end(body);
      }
    });
  }

  return { send, close: () => agent.destroy() };
}

export type RawClient = ReturnType<typeof rawClient>;

const isEventStream = (contentType: string | undefined) => contentType?.startsWith('text/event-stream') === true;

/** Fails unless the response is RFC 9457 problem+json for its own status, with the code docs/api.md §1 gives it. */
export function expectProblem(response: RawResponse, status?: number, context = ''): void {
  if (status !== undefined) expect(response.status, `${context} ${response.text.slice(0, 300)}`).toBe(status);
  expect(response.headers['content-type'], `${context} ${response.text.slice(0, 300)}`).toMatch(
    /^application\/problem\+json/,
  );
  let body: unknown;
  try {
    body = JSON.parse(response.text);
  } catch {
    expect.fail(`${context}: the ${response.status} body is not JSON: ${response.text.slice(0, 300)}`);
  }
  const problem = problemSchema.safeParse(body);
  expect(problem.success, `${context}: not a problem document: ${response.text.slice(0, 300)}`).toBe(true);
  expect(problem.data).toMatchObject({ status: response.status, code: codeFor(response.status) });
  if (response.status === 401) expectBearerChallenge(response.headers['www-authenticate'], problem.data?.reason);
}

/** Fails unless the response is a 401 `UNAUTHORIZED` with `reason` and the challenge that goes with it (docs/api.md §2). */
export function expectUnauthorized(response: RawResponse, reason: UnauthorizedReason, context = ''): void {
  expectProblem(response, 401, context);
  expect(JSON.parse(response.text).reason, `${context} ${response.text.slice(0, 300)}`).toBe(reason);
}

/**
 * JSON calls through the gateway, for the flows that set up and check data. With `localAddress` (any
 * address of 127.0.0.0/8), the calls come from that address: a client of its own, as the gateway sees it.
 */
export function jsonClient(apiUrl: string, { localAddress }: { localAddress?: string } = {}) {
  const dispatcher = localAddress === undefined ? undefined : new Agent({ localAddress });
  return async function call<T = any>(
    method: string,
    path: string,
    body?: unknown,
    token?: string,
    headers: Record<string, string> = {},
  ) {
    const response = await fetch(`${apiUrl}${path}`, {
      ...(dispatcher ? { dispatcher } : {}),
      method,
      headers: {
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        ...(token ? { authorization: `Bearer ${token}` } : {}),
        ...headers,
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    // An event stream never ends by itself: its answer is its head.
    const text = isEventStream(response.headers.get('content-type') ?? undefined)
      ? (await response.body?.cancel(), '')
      : await response.text();
    return {
      status: response.status,
      headers: response.headers,
      body: (text ? JSON.parse(text) : undefined) as T,
      raw: { status: response.status, headers: Object.fromEntries(response.headers), text } as RawResponse,
    };
  };
}

export type JsonCall = ReturnType<typeof jsonClient>;
