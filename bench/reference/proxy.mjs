// The reference behind a proxy with nothing of its own: plain Fastify and @fastify/reply-from (the
// gateway's proxy library, with a keep-alive pool of the gateway's size), no hooks, no headers, no
// logging. What any gateway in Node costs at the least, measured beside ours: PORT and UPSTREAM from the
// environment.
import replyFrom from '@fastify/reply-from';
import Fastify from 'fastify';

const app = Fastify({ logger: false });
await app.register(replyFrom, { base: process.env.UPSTREAM, undici: { connections: 128 } });
app.get('/*', (request, reply) => reply.from(request.url));
await app.listen({ host: '127.0.0.1', port: Number(process.env.PORT) });
