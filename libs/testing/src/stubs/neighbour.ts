import Fastify, { type FastifyInstance } from 'fastify';

/**
 * The server under each stand-in of another service's `/internal` look-ups: it records every request that
 * reaches it and, while `down`, answers each with 500, as an owner in trouble would.
 */
export async function neighbourServer(routes: (server: FastifyInstance) => void) {
  const requests: { url: string; requestId: string | undefined }[] = [];
  let down = false;
  const server = Fastify();
  server.addHook('onRequest', async (request, reply) => {
    requests.push({ url: request.url, requestId: request.headers['x-request-id'] as string | undefined });
    if (down) await reply.code(500).send({ status: 500 });
  });
  routes(server);
  const url = await server.listen({ host: '127.0.0.1', port: 0 });
  return {
    url,
    /** Every request that reached the stand-in, in order. */
    requests,
    /** While true, every look-up fails with 500. */
    setDown(value: boolean) {
      down = value;
    },
    close: () => server.close(),
  };
}

export const notFoundBody = { status: 404 };
