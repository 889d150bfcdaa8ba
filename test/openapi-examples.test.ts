import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { beforeAll, describe, expect, it } from 'vitest';
import { mergedDocument } from '../scripts/openapi.mjs';

/**
 * Every operation of the published document has an example (services/gateway/src/openapi-examples.ts), on
 * its JSON request body and each JSON success answer, and each example, like each named schema's own, is
 * valid against its schema. Needs the build, as the other system tests do.
 */
type JsonObject = Record<string, any>;
let document: JsonObject;
let validate: (schema: unknown, value: unknown) => string[];

beforeAll(async () => {
  document = (await mergedDocument()) as JsonObject;
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  ((addFormats as unknown as { default?: typeof addFormats }).default ?? addFormats)(ajv as never);
  // Schemas refer to `#/components/schemas/X`; compiled on their own, they find them in one schema of definitions.
  const rewritten = (schema: unknown) =>
    JSON.parse(JSON.stringify(schema).replaceAll('"#/components/schemas/', '"components#/$defs/')) as object;
  ajv.addSchema({ $id: 'components', $defs: rewritten(document.components.schemas) });
  validate = (schema, value) => {
    const check = ajv.compile(rewritten(schema));
    return check(value) ? [] : (check.errors ?? []).map((error) => `${error.instancePath} ${error.message ?? ''}`);
  };
}, 60_000);

/** Each JSON media type that should carry an example: `where` names it. */
function examplesOf(): { where: string; schema: unknown; example: unknown; has: boolean }[] {
  return Object.entries(document.paths as Record<string, Record<string, JsonObject>>).flatMap(([path, item]) =>
    Object.entries(item).flatMap(([method, operation]) => {
      const key = `${method.toUpperCase()} ${path}`;
      const media = [
        ...(operation.requestBody?.content?.['application/json']
          ? [[`${key} request`, operation.requestBody.content['application/json']]]
          : []),
        ...Object.entries(operation.responses as Record<string, JsonObject>)
          .filter(([status, response]) => Number(status) < 300 && response.content?.['application/json'])
          .map(([status, response]) => [`${key} ${status}`, response.content['application/json']]),
      ] as [string, JsonObject][];
      return media.map(([where, content]) => ({
        where,
        schema: content.schema,
        example: content.example,
        has: 'example' in content,
      }));
    }),
  );
}

describe('the examples of the published OpenAPI document', () => {
  it('has one on every operation', () => {
    const operations = Object.values(document.paths as Record<string, JsonObject>).flatMap((item) =>
      Object.values(item),
    );
    const without = Object.entries(document.paths as Record<string, Record<string, JsonObject>>).flatMap(
      ([path, item]) =>
        Object.entries(item)
          .filter(([, operation]) => !JSON.stringify(operation).includes('"example"'))
          .map(([method]) => `${method.toUpperCase()} ${path}`),
    );
    expect(operations.length).toBeGreaterThan(50);
    expect(without).toEqual([]);
    expect(
      examplesOf()
        .filter(({ has }) => !has)
        .map(({ where }) => where),
    ).toEqual([]);
  });

  it('gives each one valid against its schema', () => {
    const invalid = examplesOf().flatMap(({ where, schema, example }) =>
      validate(schema, example).map((error) => `${where}: ${error}`),
    );
    expect(invalid).toEqual([]);
  });

  it('gives each named schema an example valid against it', () => {
    const schemas = Object.entries(document.components.schemas as Record<string, JsonObject>).filter(
      ([name]) => name !== 'Problem',
    );
    expect(schemas.map(([name]) => name)).toEqual(
      expect.arrayContaining([
        'Author',
        'Comment',
        'Notification',
        'NotificationGroup',
        'Pagination',
        'RecipeSummary',
        'Post',
        'SavedItem',
        'Collection',
      ]),
    );
    for (const [name, schema] of schemas) {
      expect(schema.examples, name).toHaveLength(1);
      expect(validate({ $ref: `#/components/schemas/${name}` }, schema.examples[0]), name).toEqual([]);
    }
  });
});
