import { dropDatabase, removeExchangeFamily } from '@recipes/testing';
import { inject } from 'vitest';
import { type StartedSystem, startSystem } from '../../scripts/system.mjs';

/** What a system named `name` makes on the servers: its database, and the exchange `recipes.<name>` with every service's queues. */
async function removeSystemTopology(name: string): Promise<void> {
  await removeExchangeFamily(inject('amqpUrl'), `recipes.${name}`);
  await dropDatabase(inject('databaseUrl'), name);
}

/**
 * The whole system as separate processes, on this test run's PostgreSQL and RabbitMQ. It starts on a
 * clean slate, since the broker refuses to declare again, with other arguments, a queue an interrupted
 * earlier run left; and takes its database, exchanges and queues away with it when it stops.
 */
export async function startTestSystem(options: Omit<Parameters<typeof startSystem>[0], 'databaseUrl' | 'amqpUrl'>): Promise<StartedSystem> {
  await removeSystemTopology(options.name);
  let system: StartedSystem;
  try {
    system = await startSystem({ ...options, databaseUrl: inject('databaseUrl'), amqpUrl: inject('amqpUrl') });
  } catch (error) {
    // startSystem has stopped its processes; the error that matters is the one that made it fail.
    await removeSystemTopology(options.name).catch(() => undefined);
    throw error;
  }
  return {
    ...system,
    stop: async () => {
      await system.stop();
      await removeSystemTopology(options.name);
    },
  };
}
