import type { FastifyReply, FastifyRequest, FastifySchemaCompiler, HookHandlerDoneFunction } from 'fastify';
import { notFound } from './problem.js';

/**
 * Fastify validates path parameters before the body and the query, but the API's check order puts
 * validation (400) before existence (404), and a path id that is not even well-formed names nothing.
 * So a params validator never fails: it remembers the params it refused, and `refuseUnknownParams`
 * answers 404 for them once the body and the query have passed.
 */
const malformedParams = new WeakSet<object>();

export function paramsLast<T>(compile: FastifySchemaCompiler<T>): FastifySchemaCompiler<T> {
  return (route) => {
    const validate = compile(route);
    if (route.httpPart !== 'params') return validate;
    return (data: unknown) => {
      const result = validate(data);
      const failed = typeof result === 'object' && result !== null && 'error' in result && result.error !== undefined;
      if (!failed) return result;
      if (typeof data === 'object' && data !== null) malformedParams.add(data);
      return { value: data };
    };
  };
}

/** preHandler: the params refused by `paramsLast` validators name nothing. */
export function refuseUnknownParams(
  request: FastifyRequest,
  _reply: FastifyReply,
  done: HookHandlerDoneFunction,
): void {
  done(
    typeof request.params === 'object' && request.params !== null && malformedParams.has(request.params)
      ? notFound()
      : undefined,
  );
}
