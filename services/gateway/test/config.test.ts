import { ConfigError, parseConfig } from '@recipes/config';
import { afterEach, describe, expect, it } from 'vitest';
import { gatewayConfigSchema, upstreamUrls } from '../src/config.js';
import { Upstreams } from '../src/upstreams.js';

describe('gateway config', () => {
  it('has working defaults for every variable', () => {
    const config = parseConfig(gatewayConfigSchema, {});
    expect(config).toMatchObject({
      HOST: '127.0.0.1',
      PORT: 3000,
      UPSTREAM_TIMEOUT_MS: 10_000,
      HEALTH_TIMEOUT_MS: 1_000,
      OPENAPI_DOCUMENT: 'generated/openapi.json',
      RATE_LIMIT_ENABLED: true,
      RATE_LIMIT_MAX: 300,
      RATE_LIMIT_WINDOW_MS: 60_000,
      CORS_ORIGINS: '*',
    });
    expect(upstreamUrls(config)).toEqual({
      users: ['http://127.0.0.1:3001'],
      content: ['http://127.0.0.1:3002'],
      comments: ['http://127.0.0.1:3003'],
      collections: ['http://127.0.0.1:3004'],
      notifications: ['http://127.0.0.1:3005'],
    });
  });

  it('reads several comma-separated base URLs per service, without trailing slashes', () => {
    const config = parseConfig(gatewayConfigSchema, {
      USERS_URL: 'http://users-1:3001/, http://users-2:3001',
      RATE_LIMIT_ENABLED: 'false',
      CORS_ORIGINS: 'https://app.example, https://admin.example',
    });
    expect(config.USERS_URL).toEqual(['http://users-1:3001', 'http://users-2:3001']);
    expect(config.RATE_LIMIT_ENABLED).toBe(false);
    expect(config.CORS_ORIGINS).toEqual(['https://app.example', 'https://admin.example']);
  });

  it.each([
    ['USERS_URL', ''],
    ['USERS_URL', 'not a url'],
    ['CONTENT_URL', 'ftp://content:21'],
    ['UPSTREAM_TIMEOUT_MS', '0'],
    ['RATE_LIMIT_ENABLED', 'maybe'],
  ])('rejects %s=%j, naming the variable', (variable, value) => {
    expect(() => parseConfig(gatewayConfigSchema, { [variable]: value })).toThrow(ConfigError);
    expect(() => parseConfig(gatewayConfigSchema, { [variable]: value })).toThrow(variable);
  });
});

describe('Upstreams', () => {
  let upstreams: Upstreams | undefined;
  afterEach(() => upstreams?.close());

  it('hands out the addresses of a service in turn, each service on its own cursor', () => {
    upstreams = new Upstreams(
      {
        users: ['http://a', 'http://b', 'http://c'],
        content: ['http://x'],
        comments: ['http://y'],
        collections: ['http://z'],
        notifications: ['http://n'],
      },
      { timeoutMs: 1000 },
    );
    const picks = Array.from({ length: 6 }, () => upstreams!.next('users'));
    expect(picks).toEqual(['http://a', 'http://b', 'http://c', 'http://a', 'http://b', 'http://c']);
    expect([upstreams.next('content'), upstreams.next('content')]).toEqual(['http://x', 'http://x']);
  });
});
