import { inject } from 'vitest';
import { type StartedSystem, startSystem } from '../../scripts/system.mjs';

/** The whole system as separate processes, on this test run's PostgreSQL and RabbitMQ. */
export function startTestSystem(options: Omit<Parameters<typeof startSystem>[0], 'databaseUrl' | 'amqpUrl'>): Promise<StartedSystem> {
  return startSystem({ ...options, databaseUrl: inject('databaseUrl'), amqpUrl: inject('amqpUrl') });
}
