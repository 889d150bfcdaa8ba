import { createServer } from 'node:net';
import amqp from 'amqplib';
import pg from 'pg';
import type { StartedTestContainer } from 'testcontainers';

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

/**
 * A port nobody listens on now: for a process a test starts on a port of its own (and a container's, fixed so that it
 * stays the same across `docker stop` and `docker start`).
 */
export async function freePort(): Promise<number> {
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

  /**
   * `configured` if given, else `local` if a server answers there, else a container started now and stopped with the
   * rest.
   */
  async function serverUrl(
    configured: string | undefined,
    local: string,
    answers: (url: string) => Promise<boolean>,
    server: keyof ContainerIds,
    start: (hostPort: number) => Promise<{ container: StartedTestContainer; url: string }>,
  ): Promise<string> {
    if (configured) return configured;
    if (await answers(local)) return local;
    const { container, url } = await start(await freePort());
    stops.push(() => container.stop());
    containers[server] = container.getId();
    return url;
  }

  const databaseUrl = await serverUrl(
    environment.DATABASE_URL,
    LOCAL_DATABASE_URL,
    postgresAnswers,
    'postgres',
    async (host) => {
      const { PostgreSqlContainer } = await import('@testcontainers/postgresql');
      const container = await new PostgreSqlContainer('postgres:17-alpine')
        .withExposedPorts({ container: 5432, host })
        .start();
      return { container, url: container.getConnectionUri() };
    },
  );
  const amqpUrl = await serverUrl(environment.AMQP_URL, LOCAL_AMQP_URL, rabbitAnswers, 'rabbitmq', async (host) => {
    const { RabbitMQContainer } = await import('@testcontainers/rabbitmq');
    const container = await new RabbitMQContainer('rabbitmq:4-management-alpine')
      .withExposedPorts({ container: 5672, host })
      .start();
    return { container, url: container.getAmqpUrl() };
  });

  return {
    databaseUrl,
    amqpUrl,
    containers,
    stop: async () => {
      await Promise.all(stops.splice(0).map((stop) => stop()));
    },
  };
}
