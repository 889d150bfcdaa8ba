// The floor of admission control: plain Fastify and @fastify/reply-from in front of the system's services,
// with nothing but a fixed concurrency limit per service and class (read or write), over which it answers
// 503 + Retry-After at once, as the gateway does. No adaptive limit, no authentication, rate limits,
// headers, tracing or logging. `/{service}/{path}` goes to that service's `/{path}`. Measured beside the
// gateway at the same offered rates, it shows what refusing the excess costs on this machine at the least.
// PORT, UPSTREAMS (JSON: service name → base URL) and LIMIT (per lane, 32) from the environment.
import replyFrom from '@fastify/reply-from';
import Fastify from 'fastify';

const limit = Number(process.env.LIMIT ?? 32);
const upstreams = JSON.parse(process.env.UPSTREAMS);
const app = Fastify({ logger: false });
// Bodies pass through as they came.
app.removeAllContentTypeParsers();
app.addContentTypeParser('*', (_request, payload, done) => done(null, payload));

for (const [service, base] of Object.entries(upstreams)) {
  const inFlight = { read: 0, write: 0 };
  await app.register(
    async (scope) => {
      await scope.register(replyFrom, { base, undici: { connections: 128 } });
      scope.all('/*', (request, reply) => {
        const lane = request.method === 'GET' || request.method === 'HEAD' ? 'read' : 'write';
        if (inFlight[lane] >= limit) {
          return reply
            .code(503)
            .header('retry-after', '1')
            .type('application/problem+json')
            .send('{"status":503,"code":"SERVICE_UNAVAILABLE"}');
        }
        inFlight[lane] += 1;
        reply.raw.once('close', () => (inFlight[lane] -= 1));
        return reply.from(request.url.slice(service.length + 1));
      });
    },
    { prefix: `/${service}` },
  );
}
app.get('/', (_request, reply) => reply.send('ok'));
await app.listen({ host: '127.0.0.1', port: Number(process.env.PORT) });
