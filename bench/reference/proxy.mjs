// The reference behind a proxy with nothing of its own: plain Fastify and @fastify/reply-from (the
// gateway's proxy library, with a keep-alive pool of the gateway's size), no hooks, no headers, no
// logging. What any gateway in Node costs at the least, measured beside ours: PORT, and UPSTREAM (every
// GET to it) or ROUTES (JSON: a list of { prefix, base, streams }: any method under the path prefix to that
// base URL, its body passed through as bytes, as the gateway passes it; `streams` for event streams, which
// hold a connection each for as long as they stay open and, as through the gateway, have no body timeout)
// from the environment.
import replyFrom from '@fastify/reply-from';
import Fastify from 'fastify';

const CONNECTIONS = 128;

const app = Fastify({ logger: false });
if (process.env.ROUTES) {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', (_request, payload, done) => done(null, payload));
  for (const { prefix, base, streams } of JSON.parse(process.env.ROUTES)) {
    await app.register(
      async (scope) => {
        const undici = streams ? { connections: null, bodyTimeout: 0 } : { connections: CONNECTIONS };
        await scope.register(replyFrom, { base, undici });
        scope.all('/*', (request, reply) => reply.from(request.url));
      },
      { prefix },
    );
  }
} else {
  await app.register(replyFrom, { base: process.env.UPSTREAM, undici: { connections: CONNECTIONS } });
  app.get('/*', (request, reply) => reply.from(request.url));
}
await app.listen({ host: '127.0.0.1', port: Number(process.env.PORT) });
