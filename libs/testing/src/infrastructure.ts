import { createServer } from 'node:net';
import amqp from 'amqplib';
import pg from 'pg';

export const LOCAL_DATABASE_URL = 'postgres://postgres@127.0.0.1:5432/postgres';
export const LOCAL_AMQP_URL = 'amqp://guest:guest@127.0.0.1:5672';

/** Containers this run started, by server; absent for servers it found running (local or from env). */
export interface ContainerIds {
  postgres?: string;
  rabbitmq?: string;
}

export interface TestInfrastructure {
  databaseUrl: string;
  amqpUrl: string;
  /** For the fault tests, which stop and start a server (see servers.ts). */
  containers: ContainerIds;
  stop(): Promise<void>;
}

/** A free port, so a container's port is fixed and stays the same across `docker stop` and `docker start`. */
async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as { port: number };
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

async function postgresAnswers(url: string): Promise<boolean> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2_000 });
  try {
    await client.connect();
    await client.query('SELECT 1');
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => undefined);
  }
}

async function rabbitAnswers(url: string): Promise<boolean> {
  try {
    const connection = await amqp.connect(url, { timeout: 2_000 });
    await connection.close();
    return true;
  } catch {
    return false;
  }
}

/**
 * Where the tests find their servers, in the order docs/architecture.md §7 gives: URLs from the environment, then the
 * local servers at their default ports, then containers when a Docker engine is present.
 */
export function resolveTestInfrastructure(environment = process.env): Promise<TestInfrastructure> {
  // Every vitest project asks; they all share one set of servers.
  resolved ??= resolve(environment);
  return resolved;
}

let resolved: Promise<TestInfrastructure> | undefined;

async function resolve(environment: NodeJS.ProcessEnv): Promise<TestInfrastructure> {
  const stops: Array<() => Promise<unknown>> = [];
  const containers: ContainerIds = {};

  let databaseUrl = environment.DATABASE_URL;
  if (!databaseUrl) {
    if (await postgresAnswers(LOCAL_DATABASE_URL)) databaseUrl = LOCAL_DATABASE_URL;
    else {
      const { PostgreSqlContainer } = await import('@testcontainers/postgresql');
      const container = await new PostgreSqlContainer('postgres:17-alpine').withExposedPorts({ container: 5432, host: await freePort() }).start();
      stops.push(() => container.stop());
      containers.postgres = container.getId();
      databaseUrl = container.getConnectionUri();
    }
  }

  let amqpUrl = environment.AMQP_URL;
  if (!amqpUrl) {
    if (await rabbitAnswers(LOCAL_AMQP_URL)) amqpUrl = LOCAL_AMQP_URL;
    else {
      const { RabbitMQContainer } = await import('@testcontainers/rabbitmq');
      const container = await new RabbitMQContainer('rabbitmq:4-management-alpine').withExposedPorts({ container: 5672, host: await freePort() }).start();
      stops.push(() => container.stop());
      containers.rabbitmq = container.getId();
      amqpUrl = container.getAmqpUrl();
    }
  }

  return {
    databaseUrl,
    amqpUrl,
    containers,
    stop: async () => {
      await Promise.all(stops.splice(0).map((stop) => stop()));
    },
  };
}
