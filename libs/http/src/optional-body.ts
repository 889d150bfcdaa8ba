import type { FastifyReply, FastifyRequest, FastifySchemaCompiler, HookHandlerDoneFunction } from 'fastify';
import { badRequest } from './problem.js';

/**
 * Fastify hands a request that sent no body to its body validator as null, the same as a JSON `null` sent
 * as one. Every body of the API is a JSON object (docs/api.md §1): a sent `null` is refused first
 * (`refuseNullBody`), so that a null the validator sees means "no body", given to the schema as
 * undefined. A route whose body schema is optional then takes a request without one.
 */
export function absentBodyAsUndefined<T>(compile: FastifySchemaCompiler<T>): FastifySchemaCompiler<T> {
  return (route) => {
    const validate = compile(route);
    if (route.httpPart !== 'body') return validate;
    return (data: unknown) => validate(data === null ? undefined : data);
  };
}

/** preValidation: a body that was sent and reads as JSON `null` is no object. */
export function refuseNullBody(request: FastifyRequest, _reply: FastifyReply, done: HookHandlerDoneFunction): void {
  const sent = request.body === null && (Number(request.headers['content-length'] ?? 0) > 0 || request.headers['transfer-encoding'] !== undefined);
  done(sent ? badRequest('The request is not valid', [{ path: 'body', message: 'must be a JSON object' }]) : undefined);
}
