import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { z } from 'zod';
import { problemResponse } from './schemas.js';
import { sharedAnswer } from './shared-answer.js';

/** A named dependency the service cannot serve without, e.g. the database or the broker. */
export type ReadinessChecks = Record<string, () => Promise<boolean> | boolean>;

const readinessSchema = z.object({
  status: z.enum(['ready', 'not ready']),
  checks: z.record(z.string(), z.enum(['up', 'down'])),
});

/**
 * A health route's answers: the state, with 200 or 503 as it is ready or not. A 503 may also be the problem an
 * instance answers as it stops, before any route runs (`answerNotTaken`).
 */
export function healthResponses<S extends z.ZodType>(state: S) {
  return { 200: state, 503: { content: { 'application/json': { schema: state }, ...problemResponse(503).content } } };
}

/**
 * `/health/live`: the process answers. `/health/ready`: every dependency answers, so traffic may come.
 * Both stay off the public API (the gateway routes `/api` only) and out of the OpenAPI document. The
 * checks run once per `cacheMs` at most, shared by every probe meanwhile: a flood of probes costs the
 * database and broker no more than one.
 */
async function healthPlugin(app: FastifyInstance, { checks, cacheMs }: { checks: ReadinessChecks; cacheMs: number }) {
  app.get('/health/live', { schema: { hide: true }, logLevel: 'warn' }, async () => ({ status: 'ok' }));

  const readiness = sharedAnswer(async () => {
    const entries = await Promise.all(
      Object.entries(checks).map(async ([name, check]) => {
        const up = await Promise.resolve()
          .then(check)
          .catch(() => false);
        return [name, up ? 'up' : 'down'] as const;
      }),
    );
    const ready = entries.every(([, state]) => state === 'up');
    return { status: ready ? ('ready' as const) : ('not ready' as const), checks: Object.fromEntries(entries) };
  }, cacheMs);

  app.get(
    '/health/ready',
    { schema: { hide: true, response: healthResponses(readinessSchema) }, logLevel: 'warn' },
    async (_request, reply) => {
      const answer = await readiness();
      return reply.code(answer.status === 'ready' ? 200 : 503).send(answer);
    },
  );
}

export default fp(healthPlugin, { name: 'health' });
