import { Agent, get } from 'node:http';
import { connect } from 'node:net';
import { createLogger } from '@recipes/logging';
import { afterEach, describe, expect, it } from 'vitest';
import { type App, createApp, drainConnections } from '../src/index.js';

/** GET through `agent`, so that its keep-alive connection is reused. */
function getVia(agent: Agent, url: string): Promise<{ status: number; connection: string | undefined; body: string }> {
  return new Promise((resolve, reject) => {
    get(url, { agent }, (response) => {
      let body = '';
      response.on('data', (chunk: Buffer) => (body += chunk.toString()));
      response.on('end', () =>
        resolve({ status: response.statusCode!, connection: response.headers.connection, body }),
      );
    }).on('error', reject);
  });
}

let app: App;
let agent: Agent;

async function started(): Promise<string> {
  app = await createApp({ title: 'drain', logger: createLogger({ service: 'test', level: 'silent' }) });
  app.get('/api/ping', async () => ({ pong: true }));
  return app.listen({ host: '127.0.0.1', port: 0 });
}

afterEach(async () => {
  agent?.destroy();
  await app?.close();
});

describe('draining connections before a shutdown', () => {
  it('refuses new connections, answers on open ones and closes each after its response', async () => {
    const address = await started();
    agent = new Agent({ keepAlive: true, maxSockets: 1 });
    expect(await getVia(agent, `${address}/api/ping`)).toMatchObject({ status: 200, connection: 'keep-alive' });

    const drainStart = Date.now();
    const drained = drainConnections(app.server, 5_000);
    // A client with no connection yet is refused: it may go elsewhere, as the request never arrived.
    await expect(fetch(`${address}/api/ping`)).rejects.toMatchObject({ cause: { code: 'ECONNREFUSED' } });
    // One that sends on its idle keep-alive connection now is answered, not reset, and told to go.
    expect(await getVia(agent, `${address}/api/ping`)).toEqual({
      status: 200,
      connection: 'close',
      body: '{"pong":true}',
    });

    await drained;
    expect(Date.now() - drainStart, 'done as soon as the last connection closed').toBeLessThan(1_000);
  });

  it('closes, as the app closes, a connection that never sent a byte, which Node would wait for', async () => {
    const address = new URL(await started());
    const spare = connect(Number(address.port), address.hostname);
    await new Promise((resolve) => spare.once('connect', resolve));
    const closedByServer = new Promise((resolve) => spare.once('close', resolve));

    const closeStart = Date.now();
    await app.close();
    expect(Date.now() - closeStart).toBeLessThan(1_000);
    await closedByServer;
  });

  it('gives up waiting for an idle connection after drainMs', async () => {
    const address = await started();
    agent = new Agent({ keepAlive: true, maxSockets: 1 });
    expect((await getVia(agent, `${address}/api/ping`)).status).toBe(200);

    const drainStart = Date.now();
    await drainConnections(app.server, 300);
    expect(Date.now() - drainStart).toBeGreaterThanOrEqual(300);
    expect(Date.now() - drainStart).toBeLessThan(2_000);
  });
});
