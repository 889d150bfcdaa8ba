import swagger, { type SwaggerTransform } from '@fastify/swagger';
import type { FastifyInstance, FastifySchema } from 'fastify';
import fp from 'fastify-plugin';
import { jsonSchemaTransform, jsonSchemaTransformObject } from 'fastify-type-provider-zod';
import { listPaginationSchema } from '@recipes/contracts';
import { listLinkHeader } from './links.js';
import { BODY_METHODS } from './optional-body.js';
import type { ErrorStatus } from './problem.js';
import { problemResponses } from './schemas.js';

/**
 * The error statuses a route can answer whatever its handler does, from what the framework does around it
 * (docs/api.md §1): a bug (500); a database or service away (503); a request line or a path parameter over
 * the limit (414, see `answerClientError` and Fastify's `maxParamLength`); a path id that is not well-formed
 * (404); a body that is not JSON, too large or not valid (415, 413, 400); an invalid query or header, or a
 * body sent to a route that declares none (400, see optional-body.ts);
 * and, where @recipes/auth checks every token sent (docs/api.md §2), a bad token (401) even on public routes.
 */
export function frameworkStatuses(
  methods: readonly string[],
  url: string,
  schema: FastifySchema,
  checksTokens: boolean,
): ErrorStatus[] {
  const statuses = new Set<ErrorStatus>([414, 500, 503]);
  if (checksTokens) statuses.add(401);
  if (url.includes(':')) statuses.add(404);
  if (methods.some((method) => BODY_METHODS.has(method)))
    for (const status of [400, 413, 415] as const) statuses.add(status);
  // Path parameters are not among them: one that is not valid names nothing (404, see check-order.ts).
  if (schema.querystring || schema.headers || schema.body || url.startsWith('/api/')) statuses.add(400);
  return [...statuses].sort((a, b) => a - b);
}

/** A list answer (docs/api.md §10.1): its pagination pages by cursor too, and it sends a `Link` header. */
function isListAnswer(answer: unknown): boolean {
  const shape = (answer as { shape?: Record<string, unknown> } | undefined)?.shape;
  return shape?.pagination === listPaginationSchema;
}

/** Declares the `Link` header on the 200 of a transformed route (@fastify/swagger reads a response's `headers`). */
function withLinkHeader(transformed: ReturnType<typeof jsonSchemaTransform>): ReturnType<typeof jsonSchemaTransform> {
  const responses = (transformed.schema as { response: Record<string, object> }).response;
  return {
    ...transformed,
    schema: {
      ...transformed.schema,
      response: { ...responses, 200: { ...responses['200'], headers: listLinkHeader } },
    },
  };
}

type OpenApiObject = ReturnType<typeof jsonSchemaTransformObject>;

/**
 * The document without the `<Name>Input` copy of each named schema (`.meta({ id })`) that nothing refers
 * to: fastify-type-provider-zod writes one beside every named schema, for requests, whether a request
 * uses it or not, and an unused component is a lint warning.
 */
function withoutUnusedInputs(generated: OpenApiObject): OpenApiObject {
  const document = generated as { components?: { schemas?: Record<string, unknown> } };
  const schemas: Record<string, unknown> = { ...(document.components?.schemas ?? {}) };
  for (let removed = true; removed;) {
    removed = false;
    const text = JSON.stringify({ ...document, components: { ...document.components, schemas } });
    for (const name of Object.keys(schemas)) {
      if (name.endsWith('Input') && !text.includes(`"#/components/schemas/${name}"`)) {
        delete schemas[name];
        removed = true;
      }
    }
  }
  return { ...generated, components: { ...document.components, schemas } } as OpenApiObject;
}

/**
 * `requestBody.required: false` on each operation named in `optional`: @fastify/swagger writes `true` on every body.
 */
function withOptionalBodies(document: OpenApiObject, optional: ReadonlySet<string>): OpenApiObject {
  const paths =
    (document as { paths?: Record<string, Record<string, { operationId?: string; requestBody?: object }>> }).paths ??
    {};
  for (const item of Object.values(paths)) {
    for (const operation of Object.values(item)) {
      if (operation.operationId && optional.has(operation.operationId) && operation.requestBody) {
        operation.requestBody = { ...operation.requestBody, required: false };
      }
    }
  }
  return document;
}

/** Whether a route's body schema takes a request without a body (see optional-body.ts). */
const bodyIsOptional = (body: unknown) =>
  typeof (body as { safeParse?: unknown })?.safeParse === 'function' &&
  (body as { safeParse: (value: unknown) => { success: boolean } }).safeParse(undefined).success;

/**
 * OpenAPI generated from the routes' zod schemas, served at `/openapi.json` for the gateway to merge.
 * Only `/api` routes are public; internal and health routes stay out of the document. Each route names its
 * own `operationId` and `security` (`[]` when public) in its schema; every error status it can answer is
 * declared as problem+json: those it lists itself (`problemResponses`) and those the framework adds.
 */
async function openApiPlugin(
  app: FastifyInstance,
  { title, description, servesDocument }: { title: string; description: string; servesDocument: boolean },
) {
  const optionalBodies = new Set<string>();
  const transform: SwaggerTransform = (input) => {
    if (!input.url.startsWith('/api/')) return { schema: { ...input.schema, hide: true }, url: input.url };
    const schema: FastifySchema & { operationId?: string } = input.schema ?? {};
    if (schema.operationId && bodyIsOptional(schema.body)) optionalBodies.add(schema.operationId);
    const methods = [input.route.method].flat();
    const statuses = frameworkStatuses(methods, input.url, schema, app.hasDecorator('auth'));
    const response = { ...problemResponses(...statuses), ...(schema.response as object | undefined) };
    // A copy: the route's own schema also serializes its replies.
    const transformed = jsonSchemaTransform({ ...input, schema: { ...schema, response } } as Parameters<
      typeof jsonSchemaTransform
    >[0]);
    return isListAnswer((response as Record<number, unknown>)[200]) ? withLinkHeader(transformed) : transformed;
  };

  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: { title, description, version: '1.0.0' },
      components: {
        securitySchemes: { bearerAuth: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' } },
      },
    },
    transform,
    transformObject: (document) =>
      withOptionalBodies(withoutUnusedInputs(jsonSchemaTransformObject(document)), optionalBodies),
  });
  if (servesDocument) app.get('/openapi.json', { schema: { hide: true }, logLevel: 'warn' }, async () => app.swagger());
}

export default fp(openApiPlugin, { name: 'openapi' });
