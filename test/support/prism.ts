import { getHttpOperationsFromSpec, type IHttpRequest } from '@stoplight/prism-http';
import routeModule from '@stoplight/prism-http/dist/router/index.js';
import { validateInput, validateOutput, validateSecurity } from '@stoplight/prism-http/dist/validator/index.js';
import type { IHttpOperation } from '@stoplight/types';
import type { RecordedResponse } from '../../services/gateway/src/response-record.js';

/**
 * Conformance by a third party: each request the gateway answered, and its answer, as recorded (see
 * services/gateway/src/response-record.ts), replayed through Stoplight Prism's own router and validators,
 * the ones its validating proxy (`prism proxy --errors`) runs on live traffic. The same guarantee as the
 * proxy without a second hop in front of every system test. Mismatches, one line each:
 *
 * - a request Prism finds invalid (body, query, headers, path, security) that the API accepted (below 400);
 * - a request Prism finds valid that the API refused as invalid (400 or 415): a rule the document does not say;
 * - a response Prism finds the operation does not describe (status, media type, body, headers).
 *
 * The event stream is left out, as from the proxy (it buffers); requests no operation matches are the own
 * checker's (test/support/conformance.ts).
 */

const route = ((routeModule as unknown as { default?: typeof routeModule }).default ??
  routeModule) as typeof routeModule;

const EXCLUDED_PATHS = new Set(['/api/notifications/stream']);
/** Statuses that say the request broke the API's rules (docs/api.md §1); 413 is a size, which no schema carries. */
const REFUSED_AS_INVALID = new Set([400, 415]);
/**
 * Refusals the document states in words only, as no schema can: a cursor well-formed but not one the list
 * issued (docs/api.md §10.1); a body nested deeper than 32 levels, or read as no JSON object the API takes
 * (a `__proto__` key, a `constructor` holding `prototype`, text that is not Unicode: docs/api.md §1); a
 * mute or block of the caller themselves (docs/api.md §10.3). A 400 whose every field error is one of these
 * is no rule left unsaid.
 */
const SAID_IN_WORDS = new Set([
  'must be a cursor from a previous answer of this list',
  'must be another user',
  'The body is nested too deeply: at most 32 levels of objects and arrays',
  'The body is not valid JSON',
]);
const ERROR = 0;
const WARNING = 1;

interface Diagnostic {
  message: string;
  severity: number;
  path?: (string | number)[];
}
type Either<T> = { _tag: 'Left'; left: Diagnostic[] } | { _tag: 'Right'; right: T };

/** The query of `url` as Prism reads it: a name once is a string, repeated an array. */
function queryOf(url: string): Record<string, string | string[]> {
  const query: Record<string, string | string[]> = {};
  for (const [name, value] of new URL(url, 'http://gateway').searchParams) {
    const known = query[name];
    query[name] = known === undefined ? value : [known, value].flat();
  }
  return query;
}

/** JSON text as a value, anything else as its text; no text as no body. */
function bodyOf(text: string, contentType: string | undefined): unknown {
  if (text === '') return undefined;
  if (!/json/i.test(contentType ?? '')) return text;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

/**
 * Whether a refusal's problem details name only rules of `SAID_IN_WORDS`, or query parameters or headers
 * sent empty: Prism passes over an empty value (`limit=`), which the document's pattern refuses as the API does.
 */
function refusedForWhatPrismCannotRead(answer: string, sent: Record<string, string | string[]>): boolean {
  try {
    const { errors } = JSON.parse(answer) as { errors?: { path?: string; message?: string }[] };
    return (
      Array.isArray(errors) &&
      errors.length > 0 &&
      // A field's path may go into its parts (`types.0`): the parameter is its first.
      errors.every(
        (error) =>
          SAID_IN_WORDS.has(error.message ?? '') || [sent[(error.path ?? '').split('.')[0]!]].flat().includes(''),
      )
    );
  } catch {
    return false;
  }
}

/**
 * A body labelled JSON that is none: empty, not UTF-8 (RFC 8259 §8.1), not parsing, or null. No document's
 * body, whatever its schema; Prism reads only what parses, and a null as no body.
 */
function malformedJson(text: string, utf8: boolean, contentType: string | undefined): Diagnostic[] {
  if (!/json/i.test(contentType ?? '')) return [];
  if (text === '') return [{ message: 'the body is empty', severity: ERROR }];
  if (!utf8) return [{ message: 'the body is not UTF-8', severity: ERROR }];
  try {
    // Prism takes a JSON null for no body, which an operation whose body is optional allows; no body of
    // the document is null, and the API refuses one (`refuseNullBody`, libs/http).
    if (JSON.parse(text) === null) return [{ message: 'the body is JSON null', severity: ERROR }];
    return [];
  } catch {
    return [{ message: 'the body is not valid JSON', severity: ERROR }];
  }
}

const errorsOf = (result: Either<unknown>, severities = [ERROR]) =>
  result._tag === 'Left' ? result.left.filter((diagnostic) => severities.includes(diagnostic.severity)) : [];
const said = (diagnostics: Diagnostic[]) => diagnostics.map((diagnostic) => diagnostic.message).join('; ');

/** Checks recorded request/response pairs against `document` with Prism; build once per document. */
export async function prismChecker(document: object) {
  const operations = (await getHttpOperationsFromSpec(document)) as IHttpOperation[];

  function check(record: RecordedResponse): string[] {
    if (!record.request || record.path === undefined || EXCLUDED_PATHS.has(record.path)) return [];
    const method = record.method.toLowerCase();
    if (method === 'options') return [];
    const { headers: sent, body: text } = record.request;
    const request: IHttpRequest = {
      method: method as IHttpRequest['method'],
      url: { path: record.path, query: queryOf(record.url) },
      // Prism sees a body by its length: a chunked one is given the length it had.
      headers:
        text !== '' && sent['content-length'] === undefined
          ? { ...sent, 'content-length': String(Buffer.byteLength(text)) }
          : sent,
      body: bodyOf(text, sent['content-type']),
    };
    const routed = route({ resources: operations, input: request }) as Either<IHttpOperation>;
    if (routed._tag === 'Left') return [];
    const operation = routed.right;

    const mismatches: string[] = [];
    const refusedBy = [
      ...errorsOf(validateInput({ resource: operation, element: request }) as Either<unknown>),
      ...errorsOf(validateSecurity({ resource: operation, element: request }) as Either<unknown>),
      ...malformedJson(text, record.request.utf8 ?? true, sent['content-type']),
    ];
    if (record.status < 400 && refusedBy.length > 0)
      mismatches.push(`accepted, but the document forbids it: ${said(refusedBy)}`);
    if (
      REFUSED_AS_INVALID.has(record.status) &&
      refusedBy.length === 0 &&
      !refusedForWhatPrismCannotRead(record.body, { ...sent, ...(request.url.query ?? {}) })
    )
      mismatches.push(
        `refused, but the document allows it: ${record.body.slice(0, 300)} (sent ` +
          `${sent['content-type'] ?? 'no content type'}: ${JSON.stringify(text.slice(0, 80))})`,
      );

    if (record.complete) {
      const response = {
        statusCode: record.status,
        headers: record.headers ?? {},
        body: method === 'head' ? undefined : bodyOf(record.body, record.contentType),
      };
      const undescribed = errorsOf(validateOutput({ resource: operation, element: response }) as Either<unknown>, [
        ERROR,
        WARNING,
      ]);
      if (undescribed.length > 0) mismatches.push(`a response the document does not describe: ${said(undescribed)}`);
    }
    return mismatches.map((mismatch) => `${operation.iid ?? operation.path} ${record.status}: ${mismatch}`);
  }

  return {
    check,
    /** Every mismatch of `records`, each line naming the request, marked as Prism's. */
    checkAll(records: readonly RecordedResponse[]): string[] {
      return records.flatMap((record) =>
        check(record).map((mismatch) => `prism: ${record.method} ${record.url} → ${record.status}: ${mismatch}`),
      );
    },
  };
}
