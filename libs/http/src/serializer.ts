import fastJson from 'fast-json-stringify';
import { serializerCompiler as validatingSerializerCompiler } from 'fastify-type-provider-zod';
import { z } from 'zod';

type SerializerCompiler = typeof validatingSerializerCompiler;

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
        ? z.toJSONSchema(schema, { target: 'draft-7', io: 'output', unrepresentable: 'any' })
        : schema;
    return fastJson(jsonSchema as Parameters<typeof fastJson>[0]);
  };
}
