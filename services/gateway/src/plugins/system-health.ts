import { type App, healthResponses, sharedAnswer } from '@recipes/http';
import { z } from 'zod';
import { type Service, services } from '../route-table.js';
import type { Upstreams } from '../upstreams.js';

const systemHealthSchema = z.object({
  status: z.enum(['ready', 'not ready']),
  services: z.record(z.enum(services), z.enum(['up', 'down'])),
});

export interface SystemHealthOptions {
  upstreams: Upstreams;
  timeoutMs: number;
  /** How long an answer is reused (HEALTH_CACHE_MS). */
  cacheMs: number;
}

/**
 * `/health`: the readiness of the whole system. A service is up when every one of its addresses answers
 * its own `/health/ready` with 200 in time: with round-robin, any address that is down fails requests.
 * The gateway's own probes stay at `/health/live` and `/health/ready`. The services are asked once per
 * `cacheMs` at most, in one round shared by every caller meanwhile: `/health` is public and never rate
 * limited, and a flood of it must not become a flood of readiness checks behind it.
 */
export default async function systemHealthPlugin(app: App, { upstreams, timeoutMs, cacheMs }: SystemHealthOptions) {
  const ready = async (url: string) => {
    try {
      return (await upstreams.get(url, '/health/ready', timeoutMs)).status === 200;
    } catch {
      return false;
    }
  };

  const systemHealth = sharedAnswer(async () => {
    const states = await Promise.all(
      services.map(async (service) => {
        const up = (await Promise.all(upstreams.urls[service].map(ready))).every(Boolean);
        return [service, up ? 'up' : 'down'] as const;
      }),
    );
    const allUp = states.every(([, state]) => state === 'up');
    return {
      status: allUp ? 'ready' : 'not ready',
      services: Object.fromEntries(states) as Record<Service, 'up' | 'down'>,
    } as const;
  }, cacheMs);

  app.get(
    '/health',
    { schema: { hide: true, response: healthResponses(systemHealthSchema) }, logLevel: 'warn' },
    async (_request, reply) => {
      const body = await systemHealth();
      return reply.code(body.status === 'ready' ? 200 : 503).send(body);
    },
  );
}
