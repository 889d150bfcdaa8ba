import type { FastifyReply, FastifyRequest, FastifySchemaCompiler, HookHandlerDoneFunction } from 'fastify';
import { badRequest } from './problem.js';

/** Methods whose body Fastify reads whatever the route declares: on each, a body can be refused (415, 413, 400). */
export const BODY_METHODS: ReadonlySet<string> = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

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

/** Whether the request came with a body: a length above 0, or one sent in chunks. */
export const bodySent = (request: FastifyRequest) =>
  Number(request.headers['content-length'] ?? 0) > 0 || request.headers['transfer-encoding'] !== undefined;

/** preValidation: a body that was sent and reads as JSON `null` is no object. */
export function refuseNullBody(request: FastifyRequest, _reply: FastifyReply, done: HookHandlerDoneFunction): void {
  done(
    request.body === null && bodySent(request)
      ? badRequest('The request is not valid', [{ path: 'body', message: 'must be a JSON object' }])
      : undefined,
  );
}

/** The 400 of a body sent to an operation that declares none. */
export const undeclaredBody = () =>
  badRequest('The request is not valid', [{ path: 'body', message: 'this operation takes no body' }]);

/**
 * preValidation of a public route that declares no body (a favorite, a repost, a stream ticket, any read):
 * one sent is refused rather than ignored, as the OpenAPI document, which declares none, says.
 */
export function refuseUndeclaredBody(
  request: FastifyRequest,
  _reply: FastifyReply,
  done: HookHandlerDoneFunction,
): void {
  done(bodySent(request) ? undeclaredBody() : undefined);
}
