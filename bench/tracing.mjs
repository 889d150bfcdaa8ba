// The cost of tracing (libs/tracing), the bench's `tracing` part (`BENCH_ONLY=tracing npm run bench`).
// The system starts twice on spare ports (offset 1700), with tracing off (the default) and
// then on, every span sampled and exported over OTLP http/protobuf to a receiver here that only counts
// them: the worst case. Each time, one read (GET /api/recipes/{id}) and one mentioned comment (its POST,
// and the `notification` frame it causes on the mentioned user's stream) are timed one at a time.
import { createServer } from 'node:http';
import { dropDatabase, removeExchangeFamily } from '@recipes/testing/cleanup';
import { openEventStream } from '@recipes/testing/sse';
import { percentile, sequential } from './measure.mjs';
import { register } from './seed.mjs';
import { startSystem } from '../scripts/system.mjs';

const NAME = 'recipes_bench_tracing';
const PORT_OFFSET = 1700;
const AMQP_URL = process.env.AMQP_URL ?? 'amqp://guest:guest@127.0.0.1:5672';
const DATABASE_URL = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const READ_SECONDS = Number(process.env.BENCH_TRACING_READ_SECONDS ?? 10);
const MENTIONS = Number(process.env.BENCH_TRACING_MENTIONS ?? 200);

/** An OTLP/HTTP endpoint that takes every export and counts the requests. */
async function startReceiver() {
  let exports = 0;
  const server = createServer((request, response) => {
    request.resume();
    request.on('end', () => {
      exports += 1;
      response.writeHead(200, { 'content-type': 'application/x-protobuf' }).end();
    });
  });
  await new Promise((listening) => server.listen(0, '127.0.0.1', listening));
  return {
    url: `http://127.0.0.1:${server.address().port}`,
    exports: () => exports,
    close: () => new Promise((closed) => server.close(closed)),
  };
}

const round = (ms) => +ms.toFixed(2);

/** One mention at a time: the POST's latency, and from the POST to the frame on the mentioned user's stream. */
async function mentions(api, recipeId, author, mentioned) {
  const stream = await openEventStream(`${api}/notifications/stream`, { authorization: `Bearer ${mentioned.token}` });
  await stream.next((event) => event.event === 'unread_count', 10_000);
  const posts = [];
  const frames = [];
  for (let i = 0; i < MENTIONS + 20; i++) {
    const from = stream.received.length;
    const started = performance.now();
    const response = await fetch(`${api}/recipes/${recipeId}/comments`, {
      method: 'POST',
      headers: { authorization: `Bearer ${author.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ content: `Mention ${i} for @${mentioned.user.username}` }),
    });
    await response.arrayBuffer();
    if (response.status !== 201) throw new Error(`POST comment: ${response.status}`);
    const posted = performance.now();
    await stream.next((event) => event.event === 'notification', 10_000, from);
    // The first twenty warm up (connections, prepared statements, the JIT).
    if (i < 20) continue;
    posts.push(posted - started);
    frames.push(performance.now() - started);
  }
  stream.close();
  const figures = (times) => {
    times.sort((a, b) => a - b);
    return {
      p50Ms: round(percentile(times, 50)),
      p99Ms: round(percentile(times, 99)),
      meanMs: round(times.reduce((sum, t) => sum + t, 0) / times.length),
    };
  };
  return { post: figures(posts), toFrame: figures(frames) };
}

async function run(tracing) {
  const receiver = tracing ? await startReceiver() : undefined;
  await removeExchangeFamily(AMQP_URL, `recipes.${NAME}`);
  const system = await startSystem({
    name: NAME,
    portOffset: PORT_OFFSET,
    amqpUrl: AMQP_URL,
    logs: process.env.BENCH_LOGS ?? 'ignore',
    env: {
      RATE_LIMIT_ENABLED: 'false',
      COMMENT_LIMIT_PER_MINUTE: '100000000',
      NOTIFICATION_BUDGET_PER_HOUR: '100000000',
      ...(receiver ? { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_EXPORTER_OTLP_PROTOCOL: 'http/protobuf' } : {}),
    },
  });
  try {
    const api = `${system.urlOf('gateway')}/api`;
    const suffix = Date.now().toString(36);
    const author = await register(system.urlOf, `tracing_a_${suffix}`);
    const mentioned = await register(system.urlOf, `tracing_b_${suffix}`);
    const recipe = await fetch(`${api}/recipes`, {
      method: 'POST',
      headers: { authorization: `Bearer ${author.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ title: 'Traced', cameraModel: 'X100V', filmSimulation: 'Acros' }),
    }).then((response) => response.json());
    const read = await sequential({
      url: `${api}/recipes/${recipe.recipe.id}`,
      headers: { authorization: `Bearer ${author.token}` },
      seconds: READ_SECONDS,
    });
    const mention = await mentions(api, recipe.recipe.id, author, mentioned);
    return { tracing: tracing ? 'on' : 'off', read, mention, ...(receiver ? { otlpExports: receiver.exports() } : {}) };
  } finally {
    await system.stop();
    await receiver?.close();
    await removeExchangeFamily(AMQP_URL, `recipes.${NAME}`);
    await dropDatabase(DATABASE_URL, NAME);
  }
}

/** The same read and mentioned comments with tracing off, then on: their figures, as rows of the bench's table. */
export async function tracingCost() {
  const results = [await run(false), await run(true)];
  return results.flatMap(({ tracing, read, mention }) => [
    { tracing, what: 'GET /api/recipes/{id}', p50Ms: read.p50Ms, p99Ms: read.p99Ms, meanMs: read.meanMs },
    { tracing, what: 'POST mentioned comment', ...mention.post },
    { tracing, what: 'POST → stream frame', ...mention.toFrame },
  ]);
}
