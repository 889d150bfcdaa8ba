import { DomainError, type DomainErrorKind } from '@recipes/contracts';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { hasZodFastifySchemaValidationErrors } from 'fastify-type-provider-zod';
import {
  bearerChallenge,
  type ErrorStatus,
  type FieldError,
  HttpError,
  problem,
  PROBLEM_CONTENT_TYPE,
  type UnauthorizedReason,
} from './problem.js';
import { isDependencyUnavailable } from './unavailable.js';
import { pathOf } from './url-path.js';

/** The path part of the URL: the query string may carry what does not belong in an error body. */
const instanceOf = (request: FastifyRequest): string => pathOf(request.raw.url ?? request.url);

/** Sends problem+json; a 401 also carries its `WWW-Authenticate` challenge (docs/api.md §2), whoever answers it. */
export function sendProblem(
  request: FastifyRequest,
  reply: FastifyReply,
  status: number,
  detail: string,
  errors?: FieldError[],
  reason?: UnauthorizedReason,
): FastifyReply {
  if (status === 401) reply.header('www-authenticate', bearerChallenge(reason, detail));
  return reply
    .code(status)
    .type(PROBLEM_CONTENT_TYPE)
    .send(problem(status, detail, { instance: instanceOf(request), requestId: request.id }, errors, reason));
}

/** The one place a domain error becomes a status. */
const statusOfDomainError: Record<DomainErrorKind, ErrorStatus> = {
  invalid: 400,
  unknown_caller: 401,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
  unavailable: 503,
};

const contextNames: Record<string, string> = { body: 'body', querystring: 'query', params: 'path', headers: 'headers' };

function fieldErrors(error: {
  validation: { instancePath: string; message?: string }[];
  validationContext?: string;
}): FieldError[] {
  return error.validation.map((issue) => ({
    path:
      issue.instancePath.replace(/^\//, '').replaceAll('/', '.') ||
      (contextNames[error.validationContext ?? 'body'] ?? 'body'),
    message: issue.message ?? 'is invalid',
  }));
}

/** Every error leaves as problem+json (docs/api.md §1); nothing internal ever reaches the client. */
async function errorsPlugin(app: FastifyInstance) {
  app.setErrorHandler((error: FastifyError, request, reply) => {
    if (error instanceof HttpError)
      return sendProblem(request, reply, error.status, error.detail, error.errors, error.reason);
    if (error instanceof DomainError) {
      if (error.kind === 'unavailable') request.log.warn({ err: error }, 'a dependency is unavailable');
      // A well-signed token of an account nobody has: the users service signed it, so the account was deleted.
      const reason = error.kind === 'unknown_caller' ? 'ACCOUNT_DELETED' : undefined;
      return sendProblem(request, reply, statusOfDomainError[error.kind], error.message, undefined, reason);
    }

    if (hasZodFastifySchemaValidationErrors(error)) {
      return sendProblem(request, reply, 400, 'The request is not valid', fieldErrors(error));
    }

    const status = error.statusCode ?? 500;
    if (status === 413) return sendProblem(request, reply, 413, 'The request body is too large');
    if (status === 415) return sendProblem(request, reply, 415, 'Send the body as application/json');
    if (status === 429) return sendProblem(request, reply, 429, 'Too many requests, try again later');
    if (status === 400 || error.code === 'FST_ERR_CTP_EMPTY_JSON_BODY') {
      // Malformed JSON, an empty JSON body, a bad header: the client's mistake, described without internals.
      const detail =
        error.code?.startsWith('FST_ERR_CTP') || error instanceof SyntaxError
          ? 'The body is not valid JSON'
          : 'The request is not valid';
      return sendProblem(request, reply, 400, detail, [{ path: 'body', message: detail }]);
    }
    if (status >= 400 && status < 500) return sendProblem(request, reply, status, error.message);

    if (isDependencyUnavailable(error)) {
      request.log.warn({ err: error }, 'a dependency is unavailable');
      return sendProblem(request, reply, 503, 'The service is unavailable, try again later');
    }
    request.log.error({ err: error }, 'unhandled error');
    return sendProblem(request, reply, 500, 'An unexpected error occurred');
  });

  app.setNotFoundHandler((request, reply) =>
    sendProblem(request, reply, 404, `No route for ${request.method} ${instanceOf(request)}`),
  );
}

export default fp(errorsPlugin, { name: 'problem-errors' });
