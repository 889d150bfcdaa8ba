import type { FastifyReply, FastifyRequest } from 'fastify';
import { sendProblem } from './errors-plugin.js';

/**
 * On a 503 that an instance gives as it stops, before its app ran anything of the request: a proxy may send
 * the request, whatever its method, to another instance (the gateway does, src/plugins/proxy.ts there).
 */
export const NOT_TAKEN_HEADER = 'x-not-taken';

const stoppers = new WeakMap<object, () => void>();

/** Called by `createApp`: how `stopTaking` reaches the app's own flag. */
export function onStopTaking(app: object, stop: () => void): void {
  stoppers.set(app, stop);
}

/**
 * From now on the app answers every new request with a 503 marked not taken, and closes its connection; what
 * it took before goes on. The instance stays listening meanwhile, so that a proxy learns it is stopping from
 * an answer, never from a connection reset in the listener's queue, which it could not tell from a request cut
 * off after it was taken (`listen`, server.ts).
 */
export function stopTaking(app: object): void {
  stoppers.get(app)?.();
}

export function answerNotTaken(request: FastifyRequest, reply: FastifyReply): void {
  reply.header(NOT_TAKEN_HEADER, 'stopping').header('retry-after', 1).header('connection', 'close');
  sendProblem(request, reply, 503, 'This instance is stopping and did not take the request, try again');
}
