import type { FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';
import { pathOf } from './url-path.js';

/**
 * The body of a `201`, as its route's response schema wrote it: each route reads its own field of it
 * (`recipe`, `comment` …), which that schema already guarantees.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- typed by each route's own 201 schema
type CreatedAnswer = Record<string, any>;

/** Where the resource a `201` created is, from the answer's body and the request's path (a root-relative URL). */
export type LocationOf = (body: CreatedAnswer, path: string) => string;

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The `Location` of a `201` of this route (docs/api.md §1). */
    location?: LocationOf;
  }
}

/**
 * onSend: a `201` gets the `Location` of what it created, from its route's `config.location`. Read from
 * the body as sent, so an answer replayed for an Idempotency-Key (libs/idempotency) gets it too.
 */
export function sendLocation(
  request: FastifyRequest,
  reply: FastifyReply,
  payload: unknown,
  done: HookHandlerDoneFunction & ((error: Error | null, payload?: unknown) => void),
): void {
  const locationOf = request.routeOptions.config.location;
  if (reply.statusCode === 201 && locationOf && typeof payload === 'string') {
    try {
      reply.header('location', locationOf(JSON.parse(payload) as CreatedAnswer, pathOf(request.url)));
    } catch (error) {
      done(error as Error);
      return;
    }
  }
  done(null, payload);
}
