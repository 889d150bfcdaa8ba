import amqp from 'amqplib';
import pg from 'pg';

export const LOCAL_DATABASE_URL = 'postgres://postgres@127.0.0.1:5432/postgres';
export const LOCAL_AMQP_URL = 'amqp://guest:guest@127.0.0.1:5672';

export interface TestInfrastructure {
  databaseUrl: string;
  amqpUrl: string;
  stop(): Promise<void>;
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
 * Where the tests find their servers, in the order DESIGN.md gives: URLs from the environment, then the
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

  let databaseUrl = environment.DATABASE_URL;
  if (!databaseUrl) {
    if (await postgresAnswers(LOCAL_DATABASE_URL)) databaseUrl = LOCAL_DATABASE_URL;
    else {
      const { PostgreSqlContainer } = await import('@testcontainers/postgresql');
      const container = await new PostgreSqlContainer('postgres:16-alpine').start();
      stops.push(() => container.stop());
      databaseUrl = container.getConnectionUri();
    }
  }

  let amqpUrl = environment.AMQP_URL;
  if (!amqpUrl) {
    if (await rabbitAnswers(LOCAL_AMQP_URL)) amqpUrl = LOCAL_AMQP_URL;
    else {
      const { RabbitMQContainer } = await import('@testcontainers/rabbitmq');
      const container = await new RabbitMQContainer('rabbitmq:3.13-alpine').start();
      stops.push(() => container.stop());
      amqpUrl = container.getAmqpUrl();
    }
  }

  return {
    databaseUrl,
    amqpUrl,
    stop: async () => {
      await Promise.all(stops.splice(0).map((stop) => stop()));
    },
  };
}
