import { STATUS_CODES } from 'node:http';
import { isDeepStrictEqual } from 'node:util';
import { problemSchema } from '@recipes/contracts';
import { codeFor, PROBLEM_CONTENT_TYPE } from '@recipes/http';
import { z } from 'zod';
import { withOperationExamples } from './openapi-examples.js';
import { type Service, serviceFor } from './route-table.js';

/** The parts of a service's OpenAPI document that the merge reads; the rest is kept as is. */
const serviceDocumentSchema = z.looseObject({
  paths: z.record(z.string(), z.unknown()).optional(),
  components: z
    .looseObject({
      schemas: z.record(z.string(), z.unknown()).optional(),
      securitySchemes: z.record(z.string(), z.unknown()).optional(),
    })
    .optional(),
  tags: z.array(z.looseObject({ name: z.string() })).optional(),
});

export interface MergedDocument {
  openapi: string;
  info: { title: string; version: string; description: string; license: { name: string; identifier: string } };
  servers: { url: string; description: string }[];
  paths: Record<string, unknown>;
  components: {
    schemas: Record<string, unknown>;
    headers: Record<string, unknown>;
    securitySchemes: Record<string, unknown>;
  };
  tags: { name: string }[];
}

const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;

/** The problem details of docs/api.md §1 as JSON Schema, as the services' documents inline it. */
const problemJsonSchema = (() => {
  const { $schema: _dialect, ...schema } = z.toJSONSchema(problemSchema, { target: 'draft-2020-12', io: 'output' });
  return schema;
})();

const PROBLEM_REF = { $ref: '#/components/schemas/Problem' };

/**
 * What the gateway itself can answer on every route it forwards, before or instead of the service: a request
 * line over the limit (414), its rate limit per address (429), a service it cannot reach (503) or that does
 * not answer in time (504).
 */
const GATEWAY_STATUSES = {
  414: 'The request line is too long',
  429: 'The gateway’s rate limit per client address was hit; Retry-After says when to try again',
  503: 'The service is unavailable, or something it needs is; try again',
  504: 'The service did not answer the gateway in time',
} as const;

/**
 * The response headers the API sends (docs/api.md §1, §2, §7), each declared once as a component and
 * referred to on the responses that carry it. None is required but `Location` on a `201` and
 * `WWW-Authenticate` on a `401`: an error the framework answers before a route (a request line too long) may
 * come without the others.
 */
const RESPONSE_HEADERS = {
  RequestId: {
    description:
      'The request’s id, as sent in `x-request-id` or made by the gateway; it names the request in logs and problem details',
    schema: { type: 'string' },
  },
  RateLimit: {
    description:
      'The rate limits that apply, each as `"name";r=<remaining>;t=<seconds to reset>` (IETF RateLimit headers)',
    schema: { type: 'string' },
  },
  RateLimitPolicy: {
    description: 'The policy of each rate limit that applies, as `"name";q=<quota>;w=<window in seconds>`',
    schema: { type: 'string' },
  },
  RetryAfter: { description: 'Seconds to wait before trying again', schema: { type: 'string', pattern: '^[0-9]+$' } },
  ETag: { description: 'The representation’s validator, for `If-None-Match`', schema: { type: 'string' } },
  Location: {
    description: 'Where the resource this created is, root-relative',
    required: true,
    schema: { type: 'string', format: 'uri-reference' },
  },
  IdempotentReplayed: {
    description: '`true` when this is the stored answer of an earlier request with the same Idempotency-Key',
    schema: { type: 'string', enum: ['true'] },
  },
  WwwAuthenticate: {
    description:
      'The bearer challenge of RFC 6750 §3: `Bearer realm="recipes"`, with `error="invalid_token"` and an ' +
      '`error_description` when a token was sent and refused (docs/api.md §2)',
    required: true,
    schema: { type: 'string', pattern: '^Bearer realm="recipes"' },
  },
} as const;

const headerRef = (name: keyof typeof RESPONSE_HEADERS) => ({ $ref: `#/components/headers/${name}` });

/** The headers of `status` on an operation that answers `statuses` and takes the `parameters` named. */
function headersOf(status: string, statuses: readonly string[], parameters: readonly string[]): JsonObject {
  const headers: JsonObject = {
    'x-request-id': headerRef('RequestId'),
    RateLimit: headerRef('RateLimit'),
    'RateLimit-Policy': headerRef('RateLimitPolicy'),
  };
  if (status === '201') headers.Location = headerRef('Location');
  if (status === '401') headers['WWW-Authenticate'] = headerRef('WwwAuthenticate');
  if (status === '429' || status === '503') headers['Retry-After'] = headerRef('RetryAfter');
  if (statuses.includes('304') && (status === '200' || status === '304')) headers.ETag = headerRef('ETag');
  if (parameters.includes('idempotency-key') && status.startsWith('2'))
    headers['Idempotent-Replayed'] = headerRef('IdempotentReplayed');
  return headers;
}

type JsonObject = Record<string, unknown>;
const isObject = (value: unknown): value is JsonObject =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * Every error body the merged document declares refers to the one `Problem` schema when it is that schema,
 * and every operation declares what the gateway adds (`GATEWAY_STATUSES`). Responses are rebuilt, never
 * changed in place: the services' documents are cached as they came.
 */
function withGatewayResponses(operation: JsonObject, problem: unknown): JsonObject {
  const responses: JsonObject = {};
  for (const [status, response] of Object.entries(isObject(operation.responses) ? operation.responses : {})) {
    const content = isObject(response) && isObject(response.content) ? response.content : undefined;
    const media = content?.[PROBLEM_CONTENT_TYPE];
    responses[status] =
      content && isObject(media) && isDeepStrictEqual(media.schema, problem)
        ? {
            ...(response as JsonObject),
            content: { ...content, [PROBLEM_CONTENT_TYPE]: { ...media, schema: PROBLEM_REF } },
          }
        : response;
  }
  for (const [status, when] of Object.entries(GATEWAY_STATUSES)) {
    responses[status] ??= {
      description: `${STATUS_CODES[Number(status)]} (\`${codeFor(Number(status))}\`): ${when}.`,
      content: { [PROBLEM_CONTENT_TYPE]: { schema: PROBLEM_REF } },
    };
  }
  const statuses = Object.keys(responses);
  const parameters = (Array.isArray(operation.parameters) ? operation.parameters : []).flatMap((parameter) =>
    isObject(parameter) && typeof parameter.name === 'string' ? [parameter.name.toLowerCase()] : [],
  );
  for (const [status, response] of Object.entries(responses)) {
    const own = isObject(response) && isObject(response.headers) ? response.headers : {};
    responses[status] = {
      ...(response as JsonObject),
      headers: { ...headersOf(status, statuses, parameters), ...own },
    };
  }
  return { ...operation, responses };
}

/**
 * One document for the whole public API. A service contributes only the paths the gateway routes to it,
 * so the document never shows an endpoint the gateway would not forward. A service whose document is
 * missing or malformed is left out, and named in the description.
 */
export function mergeOpenApi(documents: ReadonlyArray<{ service: Service; document: unknown }>): MergedDocument {
  const merged: MergedDocument = {
    openapi: '3.1.0',
    info: {
      title: 'Recipe Sharing API',
      version: '1.0.0',
      description: '',
      license: { name: 'Proprietary: all rights reserved', identifier: 'LicenseRef-Proprietary' },
    },
    // Relative: the API is served by the same gateway as this document, whatever its address.
    servers: [{ url: '/', description: 'The gateway serving this document' }],
    paths: {},
    components: { schemas: {}, headers: { ...RESPONSE_HEADERS }, securitySchemes: {} },
    tags: [],
  };
  const missing: Service[] = [];
  for (const { service, document } of documents) {
    const parsed = serviceDocumentSchema.safeParse(document);
    if (!parsed.success) {
      missing.push(service);
      continue;
    }
    const { paths = {}, components = {}, tags = [] } = parsed.data;
    for (const [path, item] of Object.entries(paths)) {
      if (serviceFor(path) === service) merged.paths[path] = item;
    }
    // Shared schemas (problem details, the author summary) come from one contract package: first wins.
    merged.components.schemas = { ...components.schemas, ...merged.components.schemas };
    merged.components.securitySchemes = { ...components.securitySchemes, ...merged.components.securitySchemes };
    for (const tag of tags) if (!merged.tags.some((known) => known.name === tag.name)) merged.tags.push(tag);
  }
  merged.components.schemas.Problem ??= problemJsonSchema;
  const problem = merged.components.schemas.Problem;
  for (const [path, item] of Object.entries(merged.paths)) {
    if (!isObject(item)) continue;
    const operations = Object.fromEntries(
      HTTP_METHODS.filter((method) => isObject(item[method])).map((method) => [
        method,
        withOperationExamples(withGatewayResponses(item[method] as JsonObject, problem), merged.components.schemas),
      ]),
    );
    merged.paths[path] = { ...item, ...operations };
  }
  merged.info.description =
    'Every public endpoint, served through the gateway.' +
    (missing.length > 0 ? ` Not included (service unavailable): ${missing.join(', ')}.` : '');
  return merged;
}
