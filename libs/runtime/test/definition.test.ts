import { connect } from 'node:http2';
import { generateSigningKeyPair } from '@recipes/auth';
import { backendEnv, env, parseConfig, tokenEnv } from '@recipes/config';
import { createPool } from '@recipes/db';
import { createLogger } from '@recipes/logging';
import { afterAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { composeService, defineService, promptsUnsent } from '../src/index.js';

/**
 * Only a service that serves event streams also speaks HTTP/2 (h2c) on its public port, for the gateway's
 * stream proxy; every other one speaks HTTP/1.1 alone.
 */
const configSchema = z.object({ ...backendEnv, ...tokenEnv, PORT: env.port(0) });
const config = parseConfig(configSchema, { DATABASE_URL: 'postgres://never@127.0.0.1:9/none' });
const logger = createLogger({ service: 'definition-test', level: 'silent' });
// Never connected: composing a service makes no query.
const pool = createPool({ connectionString: config.DATABASE_URL, applicationName: 'definition-test', logger });
afterAll(() => pool.end());

async function listening(servesStreams: boolean) {
  const definition = defineService({
    name: 'probe',
    description: 'A service with one route',
    configSchema,
    migrations: new URL('file:///nowhere/'),
    publishes: [],
    parts: () => ({}),
    async routes(app) {
      app.get('/api/ping', async () => ({ pong: true }));
    },
    servesStreams,
  });
  const { app } = await composeService(definition, {
    config,
    pool,
    logger,
    keys: { publicKey: generateSigningKeyPair().publicKey },
    prompts: promptsUnsent,
  });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const { port } = app.server.address() as { port: number };
  return { app, port };
}

/** The status of GET /api/ping over h2c, or the error that ended the attempt. */
async function overHttp2(port: number): Promise<number | string> {
  const session = connect(`http://127.0.0.1:${port}`);
  try {
    return await new Promise<number | string>((resolve) => {
      session.once('error', (error) => resolve(error.message));
      session.once('close', () => resolve('closed'));
      const request = session.request({ ':path': '/api/ping' });
      request.once('response', (headers) => resolve(Number(headers[':status'])));
      request.once('error', (error) => resolve(error.message));
      request.end();
    });
  } finally {
    session.destroy();
  }
}

describe('the protocols of a service’s public port', () => {
  it('speaks HTTP/2 beside HTTP/1.1 where the service serves streams', async () => {
    const { app, port } = await listening(true);
    try {
      expect(await overHttp2(port)).toBe(200);
      expect((await fetch(`http://127.0.0.1:${port}/api/ping`)).status).toBe(200);
    } finally {
      await app.close();
    }
  });

  it('speaks only HTTP/1.1 where it does not', async () => {
    const { app, port } = await listening(false);
    try {
      expect(await overHttp2(port)).not.toBe(200);
      expect((await fetch(`http://127.0.0.1:${port}/api/ping`)).status).toBe(200);
    } finally {
      await app.close();
    }
  });
});
