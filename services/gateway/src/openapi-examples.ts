/**
 * An example on every operation of the merged document: its JSON request body and each JSON success
 * answer, composed from the examples the named schemas carry (`Comment`, `Author` … each has one, written
 * with its zod schema) and, where a shape has none, from its field's own example, format or enum. Every
 * example is checked against its schema by test/openapi-examples.test.ts.
 */

type JsonObject = Record<string, unknown>;
const isObject = (value: unknown): value is JsonObject =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** A string any of the API's text rules take: 8 characters or more, a username's characters only. */
const TEXT = 'example_text';
const BY_FORMAT: Record<string, string> = {
  uuid: '019375a2-7c1e-7d3a-9b8f-2c4d6e8f0a1b',
  'date-time': '2026-11-22T10:00:00.000Z',
  'uri-reference': '/api/example',
};
const REF = '#/components/schemas/';

/** An example value of `schema`, following `$ref`s into `schemas` (depth-bound: nothing here nests deeper). */
export function exampleOf(schema: unknown, schemas: Readonly<JsonObject>, depth = 0): unknown {
  if (!isObject(schema) || depth > 12) return null;
  if (Array.isArray(schema.examples) && schema.examples.length > 0) return schema.examples[0];
  if ('example' in schema) return schema.example;
  if ('const' in schema) return schema.const;
  if (Array.isArray(schema.enum)) return schema.enum[0];
  if (typeof schema.$ref === 'string' && schema.$ref.startsWith(REF))
    return exampleOf(schemas[schema.$ref.slice(REF.length)], schemas, depth + 1);
  const alternatives = schema.anyOf ?? schema.oneOf;
  if (Array.isArray(alternatives)) {
    const first =
      alternatives.find((alternative) => !(isObject(alternative) && alternative.type === 'null')) ?? alternatives[0];
    return exampleOf(first, schemas, depth + 1);
  }
  if ('default' in schema && schema.type !== 'object') return schema.default;
  switch (schema.type) {
    case 'object':
      return Object.fromEntries(
        Object.entries(isObject(schema.properties) ? schema.properties : {}).map(([name, property]) => [
          name,
          exampleOf(property, schemas, depth + 1),
        ]),
      );
    case 'array':
      return [exampleOf(schema.items, schemas, depth + 1)];
    case 'integer':
    case 'number':
      return typeof schema.minimum === 'number' ? Math.max(schema.minimum, 1) : 1;
    case 'boolean':
      return true;
    case 'null':
      return null;
    case 'string':
      return (typeof schema.format === 'string' && BY_FORMAT[schema.format]) || TEXT;
    default:
      return null;
  }
}

/** `media` with an `example` of its schema, unless it has one. */
function withExample(media: unknown, schemas: Readonly<JsonObject>): unknown {
  if (!isObject(media) || 'example' in media || 'examples' in media || !media.schema) return media;
  return { ...media, example: exampleOf(media.schema, schemas) };
}

/**
 * An event stream's example: a notification as it arrives (docs/api.md §9), as its schema (NotificationStreamEvent)
 * describes each event: the frame's `event`, `id` and `data` lines.
 */
function eventStreamExample(schemas: Readonly<JsonObject>): JsonObject {
  const data = exampleOf({ $ref: `${REF}Notification` }, schemas) as JsonObject;
  return { event: 'notification', id: data.id, data };
}

/** The operation with an example on its JSON request body and on each JSON or event-stream answer below 300. */
export function withOperationExamples(operation: JsonObject, schemas: Readonly<JsonObject>): JsonObject {
  const body = isObject(operation.requestBody) ? operation.requestBody : undefined;
  const requestContent = body && isObject(body.content) ? body.content : undefined;
  const responses: JsonObject = {};
  for (const [status, response] of Object.entries(isObject(operation.responses) ? operation.responses : {})) {
    const content = isObject(response) && isObject(response.content) ? response.content : undefined;
    const json = content?.['application/json'];
    const stream = content?.['text/event-stream'];
    if (Number(status) < 300 && json)
      responses[status] = {
        ...(response as JsonObject),
        content: { ...content, 'application/json': withExample(json, schemas) },
      };
    else if (Number(status) < 300 && isObject(stream)) {
      responses[status] = {
        ...(response as JsonObject),
        content: { ...content, 'text/event-stream': { ...stream, example: eventStreamExample(schemas) } },
      };
    } else responses[status] = response;
  }
  return {
    ...operation,
    ...(body && requestContent?.['application/json']
      ? {
          requestBody: {
            ...body,
            content: {
              ...requestContent,
              'application/json': withExample(requestContent['application/json'], schemas),
            },
          },
        }
      : {}),
    responses,
  };
}
