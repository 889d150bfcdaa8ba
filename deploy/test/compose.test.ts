import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { services } from '../../scripts/services.mjs';

interface ComposeService {
  restart?: string;
  healthcheck?: { test?: string[] | string; disable?: boolean };
  environment?: Record<string, string | number>;
  volumes?: string[];
  ports?: string[];
}

// `merge: true` applies the `<<: *service` keys as docker compose does.
const compose = parse(readFileSync(new URL('../../docker-compose.yml', import.meta.url), 'utf8'), { merge: true }) as { services: Record<string, ComposeService> };
const defined = compose.services;
const restartPolicies = ['always', 'unless-stopped', 'on-failure'];

describe('docker-compose.yml', () => {
  it.each(services)('runs $name with a health check on its readiness, a restart policy and METRICS_PORT', ({ name, port }) => {
    const service = defined[name];
    expect(service, name).toBeDefined();
    expect(restartPolicies).toContain(service!.restart);
    expect(service!.healthcheck?.disable).not.toBe(true);
    expect(JSON.stringify(service!.healthcheck?.test)).toContain('/health/ready');
    expect(service!.environment).toMatchObject({ SERVICE: name, PORT: port, METRICS_PORT: expect.any(Number) });
  });

  it.each([
    ['postgres', '/var/lib/postgresql/data'],
    ['rabbitmq', '/var/lib/rabbitmq'],
  ])('runs %s with a health check, a restart policy and its data on a named volume', (name, dataDir) => {
    expect(restartPolicies).toContain(defined[name]?.restart);
    expect(defined[name]?.healthcheck?.test).toBeDefined();
    const volume = defined[name]?.volumes?.find((mount) => mount.endsWith(`:${dataDir}`));
    expect(volume, `${name} keeps ${dataDir}`).toBeDefined();
    expect(Object.keys((compose as { volumes?: object }).volumes ?? {})).toContain(volume!.split(':')[0]);
  });

  it('runs current infrastructure: PostgreSQL 17 or later, RabbitMQ 4.x with its management plugin', () => {
    const postgres = /^postgres:(\d+)(?:[.-]|$)/.exec((defined.postgres as { image?: string }).image ?? '');
    expect(Number(postgres?.[1]), 'postgres image').toBeGreaterThanOrEqual(17);
    expect((defined.rabbitmq as { image?: string }).image).toMatch(/^rabbitmq:4(\.\d+)*-management(-alpine)?$/);
  });

  it('publishes only the gateway’s port, and never a metrics port', () => {
    const published = Object.entries(defined).filter(([, service]) => (service.ports ?? []).length > 0);
    expect(published.map(([name]) => name)).toEqual(['gateway']);
    expect(defined.gateway!.ports).toEqual([`${services.find((service) => service.name === 'gateway')!.port}:3000`]);
  });

  it.each(services.filter((service) => service.internalPort !== undefined))(
    'serves the internal routes of $name on their own port, where every other service looks',
    ({ name, internalPort }) => {
      expect(defined[name]!.environment?.INTERNAL_PORT).toBe(internalPort);
      const urls = Object.values(defined).map((service) => service.environment?.[`${name.toUpperCase()}_INTERNAL_URL`]).filter((url) => url !== undefined);
      expect(urls.length).toBeGreaterThan(0);
      expect(new Set(urls)).toEqual(new Set([`http://${name}:${internalPort}`]));
    },
  );

  it('has the services believe X-Forwarded-For from the gateway’s fixed address only', () => {
    const gatewayAddress = (defined.gateway as { networks?: { default?: { ipv4_address?: string } } }).networks?.default?.ipv4_address;
    expect(gatewayAddress).toMatch(/^\d+\.\d+\.\d+\.\d+$/);
    for (const { name } of services.filter((service) => service.name !== 'gateway')) expect(defined[name]!.environment?.TRUST_PROXY, name).toBe(gatewayAddress);
    expect(defined.gateway!.environment?.TRUST_PROXY).toBeUndefined();
  });

  it('gives the signing key to users only', () => {
    const holders = Object.entries(defined).filter(([name, service]) =>
      name !== 'keys' && ((service.volumes ?? []).some((volume) => volume.startsWith('keys-private')) || service.environment?.JWT_PRIVATE_KEY_FILE !== undefined),
    );
    expect(holders.map(([name]) => name)).toEqual(['users']);
  });
});
