#!/usr/bin/env node
// Replays a service's dead-letter queue into its own queue, once the cause of the failures is fixed:
//   npm run dlq:replay -- <service> [--limit N]
// Reads AMQP_URL and EVENTS_EXCHANGE from the environment, as the services do. Uses the built library
// (npm run build); in the service image, run `node scripts/dlq-replay.mjs <service>` in any service's pod.
import { parseArgs } from 'node:util';
import { services } from './services.mjs';

const consumers = services.map((service) => service.name).filter((name) => name !== 'gateway');
const usage = `usage: npm run dlq:replay -- <${consumers.join('|')}> [--limit N]`;

function fail(message) {
  process.stderr.write(`${message}\n`);
  process.exit(64); // EX_USAGE
}

let parsed;
try {
  parsed = parseArgs({ allowPositionals: true, options: { limit: { type: 'string' } } });
} catch (error) {
  fail(`${error.message}\n${usage}`);
}
const [service, ...extra] = parsed.positionals;
if (!service || extra.length > 0) fail(usage);
if (!consumers.includes(service)) fail(`unknown service ${service}\n${usage}`);
const limit = parsed.values.limit === undefined ? undefined : Number(parsed.values.limit);
if (limit !== undefined && !(Number.isInteger(limit) && limit > 0))
  fail(`--limit must be a positive integer\n${usage}`);

const url = process.env.AMQP_URL ?? 'amqp://guest:guest@127.0.0.1:5672';
const exchange = process.env.EVENTS_EXCHANGE ?? 'recipes.events';
const queue = `${exchange}.${service}`;

let replayDeadLetters;
let eventsConsumedBy;
try {
  ({ replayDeadLetters } = await import('@recipes/messaging'));
  ({ eventsConsumedBy } = await import('@recipes/contracts'));
} catch (error) {
  fail(`cannot load the libraries (${error.code ?? error.message}): run \`npm run build\` first`);
}
if (eventsConsumedBy(service).length === 0) fail(`${service} consumes no events, so it has no queue to replay into`);

try {
  const { replayed, remaining } = await replayDeadLetters({ url, exchange, queue, limit });
  console.log(
    `replayed ${replayed} dead letter(s) from ${queue}.dlq to ${queue}; ${remaining} left in the dead-letter queue`,
  );
} catch (error) {
  process.stderr.write(`replay of ${queue}.dlq failed: ${error.message}\n`);
  process.exit(1);
}
