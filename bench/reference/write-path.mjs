// A mentioned comment's way from its POST to the mentioned user's stream, in plain Node: the floors the
// bench's `writepath` part (bench/write-path.mjs) measures the system against, each a set of processes of
// this one file (ROLE), as the services are processes of their own.
// - FLOOR=plain: the guarantees the system gives a mentioned comment and nothing more, outbox → broker →
//   inbox: `comments` (write-path-comments.mjs) and `notifications` (write-path-notifications.mjs), which
//   writes each notification to its recipient's streams in its own process.
// - FLOOR=architecture: the same, plus what the system's design requires and nothing more: a bare proxy in
//   front (bench/reference/proxy.mjs, started by the bench), `comment.created` beside the mentions, a third
//   process, `counts` (write-path-counts.mjs), keeping the recipe's comment count from it, the recipe owner's
//   notification, and streams woken on every instance (write-path-notifications.mjs says how).
// The tables are copies of the services' (bench/write-path-floors.mjs creates them in SCHEMA), the queues
// are declared as the services declare theirs (quorum queues with their dead-letter queues). No logging,
// no metrics, no blocks, mutes, budgets or preferences. Each process: FLOOR, ROLE, PORT, DATABASE_URL,
// AMQP_URL, EXCHANGE, SCHEMA and JWT_PUBLIC_KEY_FILE from the environment.
import { readFileSync } from 'node:fs';
import amqp from 'amqplib';
import Fastify from 'fastify';
import pg from 'pg';
import { registerAuth } from './common.mjs';
import { COMMENT_CREATED, MENTION_CREATED, startComments } from './write-path-comments.mjs';
import { startCounts } from './write-path-counts.mjs';
import { startNotifications } from './write-path-notifications.mjs';

const { FLOOR, ROLE, PORT, DATABASE_URL, AMQP_URL, EXCHANGE, SCHEMA, JWT_PUBLIC_KEY_FILE } = process.env;
const architecture = FLOOR === 'architecture';
/** Each consuming role's queue, and the types it takes: the services' queues are `<exchange>.<service>`. */
const queues = {
  notifications: {
    queue: `${EXCHANGE}.notifications`,
    types: architecture ? [MENTION_CREATED, COMMENT_CREATED] : [MENTION_CREATED],
  },
  ...(architecture ? { counts: { queue: `${EXCHANGE}.content`, types: [COMMENT_CREATED] } } : {}),
};

const pool = new pg.Pool({
  connectionString: DATABASE_URL,
  max: 10,
  options: `-c search_path=${SCHEMA}`,
  application_name: `bench-write-path-${FLOOR}-${ROLE}`,
});
pool.on('error', () => undefined);
const connection = await amqp.connect(AMQP_URL, { noDelay: true });

const app = Fastify({ logger: false });
await registerAuth(app, readFileSync(JWT_PUBLIC_KEY_FILE, 'utf8'));
const options = { floor: FLOOR, pool, connection, exchange: EXCHANGE, ...queues[ROLE] };
if (ROLE === 'comments')
  await startComments(app, {
    ...options,
    queues: Object.fromEntries(Object.values(queues).map(({ queue, types }) => [queue, types])),
    announceCreated: architecture,
  });
else await { notifications: startNotifications, counts: startCounts }[ROLE](app, options);
await app.listen({ host: '127.0.0.1', port: Number(PORT) });
