// What a system leaves on the shared servers: its queues and exchanges on the broker, its database.
import amqp from 'amqplib';
import pg from 'pg';
import { isSystemQueue } from './settle.mjs';

/** Removes the system's queues and exchanges: a run starts from none, and leaves none behind. */
export async function deleteTopology(amqpUrl, servers, exchange) {
  const ours = (name) => name === exchange || isSystemQueue(exchange)(name);
  const [queues, exchanges] = await Promise.all([servers.rabbitmq.queues(), servers.rabbitmq.exchanges()]);
  const connection = await amqp.connect(amqpUrl);
  try {
    const channel = await connection.createChannel();
    for (const { name } of queues.filter((q) => ours(q.name))) await channel.deleteQueue(name);
    for (const name of exchanges.filter(ours)) await channel.deleteExchange(name);
  } finally {
    await connection.close();
  }
}

/** Drops the system's database, even while clients are still connected. */
export async function dropDatabase(adminUrl, name) {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    await client.query(`DROP DATABASE IF EXISTS ${client.escapeIdentifier(name)} WITH (FORCE)`);
  } finally {
    await client.end();
  }
}
