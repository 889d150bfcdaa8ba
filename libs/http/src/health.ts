import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { z } from 'zod';

/** A named dependency the service cannot serve without, e.g. the database or the broker. */
export type ReadinessChecks = Record<string, () => Promise<boolean> | boolean>;

const readinessSchema = z.object({
  status: z.enum(['ready', 'not ready']),
  checks: z.record(z.string(), z.enum(['up', 'down'])),
});

/**
 * `/health/live`: the process answers. `/health/ready`: every dependency answers, so traffic may come.
 * Both stay off the public API (the gateway routes `/api` only) and out of the OpenAPI document.
 */
async function healthPlugin(app: FastifyInstance, { checks }: { checks: ReadinessChecks }) {
  app.get('/health/live', { schema: { hide: true }, logLevel: 'warn' }, async () => ({ status: 'ok' }));

  app.get(
    '/health/ready',
    { schema: { hide: true, response: { 200: readinessSchema, 503: readinessSchema } }, logLevel: 'warn' },
    async (_request, reply) => {
      const entries = await Promise.all(
        Object.entries(checks).map(async ([name, check]) => {
          const up = await Promise.resolve()
            .then(check)
            .catch(() => false);
          return [name, up ? 'up' : 'down'] as const;
        }),
      );
      const ready = entries.every(([, state]) => state === 'up');
      return reply.code(ready ? 200 : 503).send({ status: ready ? 'ready' : 'not ready', checks: Object.fromEntries(entries) });
    },
  );
}

export default fp(healthPlugin, { name: 'health' });
