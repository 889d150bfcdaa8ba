// The bench's queues outlive a run on the broker: each run starts from empty ones, so events left over
// from an earlier run (e.g. its outbox backlog) are not consumed during this one's measurements.
import amqp from 'amqplib';

export async function deleteQueues(amqpUrl, exchange, services) {
  const connection = await amqp.connect(amqpUrl);
  try {
    const channel = await connection.createChannel();
    for (const service of services) {
      for (const queue of [`${exchange}.${service}`, `${exchange}.${service}.dlq`]) await channel.deleteQueue(queue);
    }
    await channel.close();
  } finally {
    await connection.close();
  }
}
