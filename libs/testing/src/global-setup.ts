import type { TestProject } from 'vitest/node';
import { resolveTestInfrastructure } from './infrastructure.js';

declare module 'vitest' {
  export interface ProvidedContext {
    databaseUrl: string;
    amqpUrl: string;
  }
}

/** vitest globalSetup: finds PostgreSQL and RabbitMQ once for the whole run and hands their URLs to every file. */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const infrastructure = await resolveTestInfrastructure();
  project.provide('databaseUrl', infrastructure.databaseUrl);
  project.provide('amqpUrl', infrastructure.amqpUrl);
  return infrastructure.stop;
}
