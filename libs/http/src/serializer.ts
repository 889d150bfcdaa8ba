import fastJson from 'fast-json-stringify';
import { serializerCompiler as validatingSerializerCompiler } from 'fastify-type-provider-zod';
import { z } from 'zod';

type SerializerCompiler = typeof validatingSerializerCompiler;

/** Keywords whose values are data, not schemas: never rewritten. */
const DATA_KEYWORDS = new Set(['const', 'default', 'enum', 'examples']);
/** Keywords whose values map names to schemas: a property named like a data keyword is a schema all the same. */
const SCHEMA_MAPS = new Set(['properties', 'patternProperties', 'definitions', '$defs']);

const isNullType = (schema: unknown) =>
  typeof schema === 'object' &&
  schema !== null &&
  Object.keys(schema).length === 1 &&
  'type' in schema &&
  schema.type === 'null';

/** A schema of one named type, with nothing that would need a check to choose it. */
function isOneType(schema: unknown): schema is { type: string } {
  if (typeof schema !== 'object' || schema === null || !('type' in schema) || typeof schema.type !== 'string')
    return false;
  return !['$ref', 'anyOf', 'oneOf', 'allOf', 'const', 'not', 'if'].some((keyword) => keyword in schema);
}

/**
 * `schema` with every `anyOf` of one type and `null` (zod's `.nullable()` of a UUID, a timestamp, an object)
 * written as a type list, `type: [that type, 'null']`: fast-json-stringify writes an `anyOf` by checking each
 * branch with ajv, its pattern included, for every value of it in every response, where a type list is a
 * `typeof`. A page of 50 comments took 40.2 µs to write, 17.7 µs with its ids and times as type lists.
 */
export function nullablesAsTypeLists(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(nullablesAsTypeLists);
  if (typeof schema !== 'object' || schema === null) return schema;
  const node: Record<string, unknown> = {};
  for (const [keyword, value] of Object.entries(schema)) {
    if (DATA_KEYWORDS.has(keyword)) node[keyword] = value;
    else if (SCHEMA_MAPS.has(keyword) && typeof value === 'object' && value !== null)
      node[keyword] = Object.fromEntries(Object.entries(value).map(([name, s]) => [name, nullablesAsTypeLists(s)]));
    else node[keyword] = nullablesAsTypeLists(value);
  }
  const { anyOf, ...siblings } = node;
  if (!Array.isArray(anyOf) || anyOf.length !== 2) return node;
  const type = anyOf.find((branch) => !isNullType(branch));
  if (!anyOf.some(isNullType) || !isOneType(type)) return node;
  return { ...siblings, ...type, type: [type.type, 'null'] };
}

/**
 * Responses are written by Fastify's compiled serializer (fast-json-stringify) from the JSON Schema of each
 * route's zod response schema: what the schema does not name is left out, as zod would strip it, at a
 * fraction of the cost of checking every response with zod. Tests run with `validate` on (the setting
 * RESPONSE_VALIDATION), so that a response of the wrong shape still fails a test.
 */
export function responseSerializerCompiler(validate: boolean): SerializerCompiler {
  if (validate) return validatingSerializerCompiler;
  return ({ schema }) => {
    const jsonSchema =
      schema instanceof z.ZodType
        ? nullablesAsTypeLists(z.toJSONSchema(schema, { target: 'draft-7', io: 'output', unrepresentable: 'any' }))
        : schema;
    return fastJson(jsonSchema as Parameters<typeof fastJson>[0]);
  };
}
