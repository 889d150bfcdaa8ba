// A bare Fastify "hello" on this machine: the most any route here can do, for comparison.
import Fastify from 'fastify';

const app = Fastify({ logger: false });
app.get('/', async () => ({ hello: 'world' }));
await app.listen({ host: '127.0.0.1', port: Number(process.env.PORT) });
