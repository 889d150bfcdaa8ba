// What amqplib's one write per frame costs, and what a turn's frames in one write save
// (libs/messaging/src/frame-writes.ts): a confirm channel publishes MESSAGES small events to a queue of
// its own, GROUPS (1, then 10) per turn, each group's confirms awaited before the next; a second channel
// consumes them (prefetch 100) and acks each as it comes. CPU ms per 1,000 messages of this process (both
// ends are here) and of RabbitMQ, and messages a second, with the socket as amqplib leaves it and with
// its frames written per turn, in alternating rounds. Run alone, after `npm run build`:
// `nice node bench/micro/amqp-frame-writes.mjs`.
import { execSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import amqp from 'amqplib';
import { socketOf, writeFramesPerTurn } from '../../libs/messaging/dist/frame-writes.js';

const url = process.env.AMQP_URL ?? 'amqp://guest:guest@127.0.0.1:5672';
const MESSAGES = 20_000;
const ROUNDS = 3;
const GROUPS = [1, 10];

/** CPU seconds RabbitMQ's VM has used (utime + stime of beam.smp), from /proc. */
function brokerCpu() {
  const pid = execSync('pgrep -o beam.smp').toString().trim();
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

async function round(group, perTurn) {
  const connection = await amqp.connect(url, { noDelay: true });
  if (perTurn) writeFramesPerTurn(socketOf(connection));
  try {
    const publisher = await connection.createConfirmChannel();
    const consumer = await connection.createChannel();
    const { queue } = await consumer.assertQueue('', { exclusive: true, autoDelete: true });
    await consumer.prefetch(100);
    let received = 0;
    let allReceived;
    const done = new Promise((resolve) => (allReceived = resolve));
    await consumer.consume(queue, (message) => {
      consumer.ack(message);
      if (++received === MESSAGES) allReceived();
    });
    const body = Buffer.from(
      JSON.stringify({ id: '00000000-0000-4000-8000-000000000000', type: 'comment.mention.created', data: { n: 0 } }),
    );
    const [cpuBefore, brokerBefore, startedAt] = [process.cpuUsage(), brokerCpu(), performance.now()];
    for (let sent = 0; sent < MESSAGES; sent += group) {
      const confirms = [];
      for (let i = 0; i < group; i++)
        confirms.push(
          new Promise((resolve, reject) =>
            publisher.publish('', queue, body, { persistent: true }, (error) => (error ? reject(error) : resolve())),
          ),
        );
      await Promise.all(confirms);
    }
    await done;
    const seconds = (performance.now() - startedAt) / 1000;
    const own = process.cpuUsage(cpuBefore);
    return {
      ownMsPer1000: +(((own.user + own.system) / 1000 / MESSAGES) * 1000).toFixed(1),
      brokerMsPer1000: +(((brokerCpu() - brokerBefore) * 1000 * 1000) / MESSAGES).toFixed(1),
      perSecond: Math.round(MESSAGES / seconds),
    };
  } finally {
    await connection.close();
  }
}

const results = [];
for (let r = 0; r < ROUNDS; r++) {
  for (const group of GROUPS) {
    for (const perTurn of r % 2 === 0 ? [false, true] : [true, false]) {
      results.push({
        round: r + 1,
        group,
        writes: perTurn ? 'per turn' : 'per frame',
        ...(await round(group, perTurn)),
      });
    }
  }
}
console.table(results);
