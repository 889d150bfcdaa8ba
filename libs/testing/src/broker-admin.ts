import amqp from 'amqplib';

/** A plain amqplib connection straight to the broker, for looking at queues behind the library's back. */
export async function brokerAdmin(url: string) {
  const connection = await amqp.connect(url);
  const channel = await connection.createChannel();
  return {
    connection,
    channel,
    /** Consumers on `queue`, or undefined when it does not exist (a failed check closes its channel). */
    async consumerCount(queue: string): Promise<number | undefined> {
      const probe = await connection.createChannel();
      probe.on('error', () => undefined);
      try {
        return (await probe.checkQueue(queue)).consumerCount;
      } catch {
        return undefined;
      } finally {
        await probe.close().catch(() => undefined);
      }
    },
    /** Removes a consumer's queues and the exchanges, ignoring what is already gone. */
    async deleteTopology(exchange: string, queues: string[]): Promise<void> {
      for (const queue of queues.flatMap((name) => [name, `${name}.dlq`])) await channel.deleteQueue(queue);
      await channel.deleteExchange(exchange);
      await channel.deleteExchange(`${exchange}.dlx`);
    },
    close: () => connection.close(),
  };
}

