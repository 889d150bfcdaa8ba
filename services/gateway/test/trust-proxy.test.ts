import type { App } from '@recipes/http';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { addressOf, type Echoed, startGateway, startUpstream, type Upstream } from './support/servers.js';

/**
 * X-Forwarded-For counts only when it comes from a proxy in TRUST_PROXY. Every request here arrives over a
 * real socket from 127.0.0.1: with TRUST_PROXY=10.9.9.9 that peer is an ordinary client, with
 * TRUST_PROXY=loopback it is a trusted proxy (set explicitly, whatever the shared default is).
 */
const UNTRUSTED = '10.9.9.9';
const TRUSTED = 'loopback';

let upstream: Upstream;

beforeAll(async () => {
  upstream = await startUpstream('everything');
});

afterAll(async () => {
  await upstream?.close();
});

/** A gateway of its own for one test, so no other test shares its rate-limit budgets. */
async function gatewayTrusting(trustProxy: string | undefined, env: Record<string, string> = {}): Promise<string> {
  const urls = {
    USERS_URL: upstream.url,
    CONTENT_URL: upstream.url,
    COMMENTS_URL: upstream.url,
    COLLECTIONS_URL: upstream.url,
    NOTIFICATIONS_URL: upstream.url,
  };
  const gateway: App = await startGateway(
    { ...urls, ...(trustProxy === undefined ? {} : { TRUST_PROXY: trustProxy }), ...env },
    { listen: true },
  );
  onTestFinished(() => gateway.close());
  return addressOf(gateway);
}

async function get(base: string, forwardedFor?: string) {
  const response = await request(`${base}/api/recipes`, {
    headers: forwardedFor === undefined ? {} : { 'x-forwarded-for': forwardedFor },
  });
  const text = await response.body.text();
  return {
    status: response.statusCode,
    echoed: response.statusCode === 200 ? (JSON.parse(text) as Echoed) : undefined,
  };
}

describe('rate limit per client address', () => {
  const limited = { RATE_LIMIT_MAX: '2', RATE_LIMIT_WINDOW_MS: '60000' };

  it('gives a client that is not a trusted proxy no fresh budget for an X-Forwarded-For of its own', async () => {
    const base = await gatewayTrusting(UNTRUSTED, limited);
    expect((await get(base, '198.51.100.1')).status).toBe(200);
    expect((await get(base, '198.51.100.2')).status).toBe(200);
    expect((await get(base, '198.51.100.3')).status).toBe(429);
    expect((await get(base)).status).toBe(429);
  });

  it('believes nobody’s X-Forwarded-For by default, a client on the gateway’s own host included', async () => {
    for (const trustProxy of [undefined, 'none']) {
      const base = await gatewayTrusting(trustProxy, limited);
      expect((await get(base, '198.51.100.1')).status).toBe(200);
      expect((await get(base, '198.51.100.2')).status).toBe(200);
      expect((await get(base, '198.51.100.3')).status, `TRUST_PROXY=${trustProxy}`).toBe(429);
    }
  });

  it('counts each client behind a trusted proxy on its own', async () => {
    const base = await gatewayTrusting(TRUSTED, limited);
    expect((await get(base, '198.51.100.1')).status).toBe(200);
    expect((await get(base, '198.51.100.1')).status).toBe(200);
    expect((await get(base, '198.51.100.1')).status).toBe(429);
    expect((await get(base, '198.51.100.2')).status).toBe(200);
  });
});

describe('X-Forwarded-For sent to the services', () => {
  const unlimited = { RATE_LIMIT_ENABLED: 'false' };

  it('replaces what a client that is not a trusted proxy claims with its address', async () => {
    const base = await gatewayTrusting(UNTRUSTED, unlimited);
    expect((await get(base, '203.0.113.9')).echoed?.headers['x-forwarded-for']).toBe('127.0.0.1');
    expect((await get(base, '203.0.113.9, 10.9.9.9')).echoed?.headers['x-forwarded-for']).toBe('127.0.0.1');
    expect((await get(base)).echoed?.headers['x-forwarded-for']).toBe('127.0.0.1');
  });

  it('replaces what any client claims with its address by default', async () => {
    const base = await gatewayTrusting(undefined, unlimited);
    expect((await get(base, '203.0.113.9')).echoed?.headers['x-forwarded-for']).toBe('127.0.0.1');
  });

  it('appends the address of a trusted proxy to the chain it sent', async () => {
    const base = await gatewayTrusting(TRUSTED, unlimited);
    expect((await get(base, '203.0.113.9')).echoed?.headers['x-forwarded-for']).toBe('203.0.113.9, 127.0.0.1');
    expect((await get(base, '198.51.100.7, 203.0.113.9')).echoed?.headers['x-forwarded-for']).toBe(
      '198.51.100.7, 203.0.113.9, 127.0.0.1',
    );
    expect((await get(base)).echoed?.headers['x-forwarded-for']).toBe('127.0.0.1');
  });
});
