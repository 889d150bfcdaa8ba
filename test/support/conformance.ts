import { asyncApiDocument } from '@recipes/contracts';
import { Ajv as Ajv7 } from 'ajv';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import type { RecordedResponse } from '../../services/gateway/src/response-record.js';

/**
 * Conformance by traffic: each response the gateway sent (as it records them, see
 * services/gateway/src/response-record.ts) checked against the published OpenAPI document, and each event
 * seen on the broker against the AsyncAPI catalogue. A check answers with its mismatches, one line each;
 * none means it conforms.
 */

export type { RecordedResponse };

type JsonSchema = Record<string, unknown>;

interface MediaType {
  schema?: JsonSchema;
}

interface ResponseObject {
  content?: Record<string, MediaType>;
}

interface Operation {
  operationId?: string;
  responses?: Record<string, ResponseObject>;
}

export interface OpenApiDocument {
  paths: Record<string, Record<string, unknown>>;
  components?: { schemas?: Record<string, JsonSchema> };
}

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];
const PROBLEM_TYPE = 'application/problem+json';

/** `application/json; charset=utf-8` → `application/json`. */
const mediaTypeOf = (contentType: string | undefined) => contentType?.split(';')[0]?.trim().toLowerCase() ?? '';
const isJson = (mediaType: string) => mediaType === 'application/json' || mediaType.endsWith('+json');

function formatted(ajv: Ajv7 | Ajv2020): Ajv7 | Ajv2020 {
  // ajv-formats is CommonJS: its default export is the function itself, or wraps it.
  const add = ((addFormats as unknown as { default?: typeof addFormats }).default ?? addFormats) as unknown as (
    instance: Ajv7 | Ajv2020,
  ) => void;
  add(ajv);
  return ajv;
}

/** The declared response of `status`: exactly, else its range (`4XX`), else `default`. */
function declaredResponse(responses: Record<string, ResponseObject>, status: number): ResponseObject | undefined {
  return responses[String(status)] ?? responses[`${String(status)[0]}XX`] ?? responses.default;
}

/**
 * A validator for each schema of `document`, compiled once: its `#/components/schemas/X` references (in the schema
 * and in the components it reaches) resolve to the document's components, held as one schema of definitions.
 */
function schemaValidators(document: OpenApiDocument) {
  const toDefinitions = (schema: unknown) =>
    JSON.parse(JSON.stringify(schema).replaceAll('"#/components/schemas/', '"components#/$defs/')) as JsonSchema;
  const ajv = formatted(new Ajv2020({ strict: false, allErrors: true }));
  ajv.addSchema({ $id: 'components', $defs: toDefinitions(document.components?.schemas ?? {}) });
  const validators = new Map<object, ReturnType<Ajv2020['compile']>>();
  return (schema: JsonSchema) => {
    let validate = validators.get(schema);
    if (!validate) {
      validate = ajv.compile(toDefinitions(schema));
      validators.set(schema, validate);
    }
    return validate;
  };
}

/** Checks recorded responses against an OpenAPI 3.1 document. */
export function openApiChecker(document: OpenApiDocument) {
  const validatorOf = schemaValidators(document);
  const problem = document.components?.schemas?.Problem;

  const operations = Object.entries(document.paths).map(([template, item]) => ({
    template,
    pattern: new RegExp(
      `^${template
        .split(/\{[^}]+\}/)
        .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
        .join('[^/]+')}$`,
    ),
    item,
  }));

  /** The operation for `method` on `path`, most literal template first (`/users/me` before `/users/{id}`). */
  function operationFor(method: string, path: string): { key: string; operation: Operation } | undefined {
    const lower = method.toLowerCase() === 'head' ? 'get' : method.toLowerCase();
    const matches = operations
      .filter(({ pattern, item }) => pattern.test(path) && METHODS.includes(lower) && typeof item[lower] === 'object')
      .sort((a, b) => (a.template.match(/\{/g)?.length ?? 0) - (b.template.match(/\{/g)?.length ?? 0));
    const match = matches[0];
    if (!match) return undefined;
    const operation = match.item[lower] as Operation;
    return { key: operation.operationId ?? `${lower.toUpperCase()} ${match.template}`, operation };
  }

  function bodyMismatches(record: RecordedResponse, schema: JsonSchema | undefined, mediaType: string): string[] {
    if (record.method === 'HEAD' || !record.complete || !schema || !isJson(mediaType)) return [];
    let body: unknown;
    try {
      body = JSON.parse(record.body);
    } catch {
      return [`the ${mediaType} body is not JSON: ${record.body.slice(0, 200)}`];
    }
    const validate = validatorOf(schema);
    if (validate(body)) return [];
    return (validate.errors ?? []).map(
      (error) => `body${error.instancePath} ${error.message ?? 'is invalid'} (${error.schemaPath})`,
    );
  }

  /** Mismatches of one recorded response; empty when it conforms. */
  function check(record: RecordedResponse): string[] {
    const mediaType = mediaTypeOf(record.contentType);
    // CORS preflights are answered by the gateway itself (docs/api.md §1), outside the API.
    if (record.method === 'OPTIONS' && record.status === 204) return [];
    const found = record.path === undefined ? undefined : operationFor(record.method, record.path);
    if (!found) {
      // No operation: a path or method the API does not have, or a spelling the gateway refuses. All the
      // document promises then is an error as problem details (docs/api.md §1).
      if (record.status < 400) return [`${record.status} for a request no operation describes`];
      if (mediaType !== PROBLEM_TYPE)
        return [`${record.status} is ${mediaType || 'without a content type'}, not ${PROBLEM_TYPE}`];
      return bodyMismatches(record, problem, mediaType);
    }
    const { key, operation } = found;
    const declared = declaredResponse(operation.responses ?? {}, record.status);
    if (!declared) return [`${key} does not declare status ${record.status}`];
    const content = declared.content ?? {};
    if (Object.keys(content).length === 0) {
      return record.body === '' || record.method === 'HEAD'
        ? []
        : [`${key} declares no body for ${record.status}, but one was sent`];
    }
    const media = content[mediaType];
    if (!media)
      return [
        `${key} declares ${Object.keys(content).join(', ')} for ${record.status}, not ${mediaType || 'no content type'}`,
      ];
    return bodyMismatches(record, media.schema, mediaType).map((mismatch) => `${key} ${record.status}: ${mismatch}`);
  }

  return {
    check,
    /** Every mismatch of `records`, each line naming the request. */
    checkAll(records: readonly RecordedResponse[]): string[] {
      return records.flatMap((record) =>
        check(record).map((mismatch) => `${record.method} ${record.url} → ${record.status}: ${mismatch}`),
      );
    },
  };
}

/** One event of a notification stream as a client parses it: its `event:`, `id:` and `data:` lines. */
export interface StreamFrame {
  event: string;
  id?: string;
  data: string;
  comment?: string;
  retry?: number;
}

/**
 * Checks the events a notification stream sent against the published document's `NotificationStreamEvent`: its
 * `data:` line is JSON and, with its `event:` and `id:`, one of the events the document names. Comments and `retry:`
 * carry no event.
 */
export function streamEventChecker(document: OpenApiDocument) {
  const validate = schemaValidators(document)({ $ref: '#/components/schemas/NotificationStreamEvent' });
  return function check(frame: StreamFrame): string[] {
    if (frame.comment !== undefined || frame.event === 'retry') return [];
    const name = `event ${frame.event}${frame.id === undefined ? '' : ` (id ${frame.id})`}`;
    let data: unknown;
    try {
      data = JSON.parse(frame.data);
    } catch {
      return [`${name}: the data line is not JSON: ${frame.data.slice(0, 200)}`];
    }
    const event = { event: frame.event, ...(frame.id === undefined ? {} : { id: frame.id }), data };
    if (validate(event)) return [];
    return (validate.errors ?? []).map(
      (error) => `${name}: ${error.instancePath || '/'} ${error.message ?? 'is invalid'} (${error.schemaPath})`,
    );
  };
}

/** The lines of a record file the gateway wrote, each one response. */
export function parseRecords(text: string): RecordedResponse[] {
  return text
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as RecordedResponse);
}

/** An event as it arrived on the broker: its routing key and its body. */
export interface SeenEvent {
  routingKey: string;
  content: string;
}

/**
 * Checks events against the AsyncAPI catalogue (@recipes/contracts): the body is the envelope of a catalogued
 * type and version, valid against its message's payload schema, and routed by its type.
 */
export function eventChecker(document = asyncApiDocument()) {
  // AsyncAPI 3.0's default schema format is JSON Schema draft 7.
  const ajv = formatted(new Ajv7({ strict: false, allErrors: true }));
  const messages = document.components.messages as Record<string, { payload: JsonSchema }>;
  const validators = new Map(Object.entries(messages).map(([id, message]) => [id, ajv.compile(message.payload)]));

  return function check(event: SeenEvent): string[] {
    let body: { id?: unknown; type?: unknown; version?: unknown };
    try {
      body = JSON.parse(event.content);
    } catch {
      return [`${event.routingKey}: the body is not JSON`];
    }
    const name = `${String(body.id)} (${String(body.type)} v${String(body.version)})`;
    const validate = validators.get(`${String(body.type)}.v${String(body.version)}`);
    if (!validate) return [`${name}: not in the event catalogue`];
    const mismatches = body.type === event.routingKey ? [] : [`${name}: routed as ${event.routingKey}`];
    if (!validate(body)) {
      mismatches.push(
        ...(validate.errors ?? []).map(
          (error) => `${name}: payload${error.instancePath} ${error.message ?? 'is invalid'}`,
        ),
      );
    }
    return mismatches;
  };
}
