import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * The id that ties together everything one request or one event caused: the request id while an HTTP
 * request is handled, the correlation id while an event is. Kept in the async context so that calls to
 * other services can pass it on without every function between taking it as a parameter.
 */
const trail = new AsyncLocalStorage<string>();

/** Runs `work` with `id` as the current trail id, for everything it awaits too. */
export function withTrailId<T>(id: string, work: () => T): T {
  return trail.run(id, work);
}

/** The id of the request or event being handled, if any. */
export function currentTrailId(): string | undefined {
  return trail.getStore();
}
