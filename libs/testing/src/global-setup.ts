import type { TestProject } from 'vitest/node';
import { type ContainerIds, resolveTestInfrastructure } from './infrastructure.js';

declare module 'vitest' {
  export interface ProvidedContext {
    databaseUrl: string;
    amqpUrl: string;
    /** The containers this run started, for stopping and starting a server in the fault tests. */
    containers: ContainerIds;
  }
}

/** vitest globalSetup: finds PostgreSQL and RabbitMQ once for the whole run and hands their URLs to every file. */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const infrastructure = await resolveTestInfrastructure();
  project.provide('databaseUrl', infrastructure.databaseUrl);
  project.provide('amqpUrl', infrastructure.amqpUrl);
  project.provide('containers', infrastructure.containers);
  return infrastructure.stop;
}
