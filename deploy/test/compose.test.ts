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
const compose = parse(readFileSync(new URL('../../docker-compose.yml', import.meta.url), 'utf8'), { merge: true }) as {
  services: Record<string, ComposeService>;
};
const defined = compose.services;
const restartPolicies = ['always', 'unless-stopped', 'on-failure'];

describe('docker-compose.yml', () => {
  it.each(services)(
    'runs $name with a health check on its readiness, a restart policy and METRICS_PORT',
    ({ name, port }) => {
      const service = defined[name];
      expect(service, name).toBeDefined();
      expect(restartPolicies).toContain(service!.restart);
      expect(service!.healthcheck?.disable).not.toBe(true);
      expect(JSON.stringify(service!.healthcheck?.test)).toContain('/health/ready');
      expect(service!.environment).toMatchObject({ SERVICE: name, PORT: port, METRICS_PORT: expect.any(Number) });
    },
  );

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

  it.each(['gateway', 'users', 'comments'])(
    'has %s count its limits in the shared Redis, started before it and healthy',
    (name) => {
      const redisUrl = new URL(String(defined[name]?.environment?.REDIS_URL));
      expect(redisUrl.protocol).toBe('redis:');
      const redis = defined[redisUrl.hostname];
      expect(redis, `the service ${redisUrl.hostname}`).toBeDefined();
      expect(restartPolicies).toContain(redis!.restart);
      expect(redis!.healthcheck?.test).toBeDefined();
      expect(
        (defined[name] as { depends_on?: Record<string, { condition: string }> }).depends_on?.[redisUrl.hostname],
      ).toEqual({ condition: 'service_healthy' });
    },
  );

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
      const urls = Object.values(defined)
        .map((service) => service.environment?.[`${name.toUpperCase()}_INTERNAL_URL`])
        .filter((url) => url !== undefined);
      expect(urls.length).toBeGreaterThan(0);
      expect(new Set(urls)).toEqual(new Set([`http://${name}:${internalPort}`]));
    },
  );

  it('has the services believe X-Forwarded-For from the gateway’s fixed address only', () => {
    const gatewayAddress = (defined.gateway as { networks?: { default?: { ipv4_address?: string } } }).networks?.default
      ?.ipv4_address;
    expect(gatewayAddress).toMatch(/^\d+\.\d+\.\d+\.\d+$/);
    for (const { name } of services.filter((service) => service.name !== 'gateway'))
      expect(defined[name]!.environment?.TRUST_PROXY, name).toBe(gatewayAddress);
    expect(defined.gateway!.environment?.TRUST_PROXY).toBeUndefined();
  });

  /** The container path each of `service`'s bind mounts puts the repository file `file` at. */
  const mountOf = (service: string, file: string) =>
    defined[service]?.volumes?.map((volume) => volume.split(':')).find(([source]) => source === `./${file}`)?.[1];
  const repoFile = (file: string) => parse(readFileSync(new URL(`../../${file}`, import.meta.url), 'utf8'));

  it('runs Prometheus with the alert rules, scraping every service’s metrics port', () => {
    const config = repoFile('deploy/prometheus/prometheus.yml') as {
      rule_files: string[];
      scrape_configs: Array<{
        honor_labels?: boolean;
        static_configs: Array<{ targets: string[]; labels: { service: string } }>;
      }>;
    };
    expect(mountOf('prometheus', 'deploy/prometheus/prometheus.yml')).toBe('/etc/prometheus/prometheus.yml');
    expect(config.rule_files).toEqual([mountOf('prometheus', 'deploy/prometheus/rules.yml')]);
    const [job] = config.scrape_configs;
    // The processes' own `service` label is kept.
    expect(job?.honor_labels).toBe(true);
    const scraped = Object.fromEntries(job!.static_configs.map(({ targets, labels }) => [labels.service, targets]));
    expect(scraped).toEqual(
      Object.fromEntries(services.map(({ name }) => [name, [`${name}:${defined[name]!.environment?.METRICS_PORT}`]])),
    );
    expect(restartPolicies).toContain(defined.prometheus?.restart);
  });

  it('runs Grafana with the Prometheus data source and the dashboard where its provisioning looks', () => {
    const datasources = repoFile('deploy/grafana/provisioning/datasources.yml') as {
      datasources: Array<{ type: string; url: string }>;
    };
    expect(datasources.datasources).toEqual([
      expect.objectContaining({ type: 'prometheus', url: 'http://prometheus:9090' }),
    ]);
    const providers = repoFile('deploy/grafana/provisioning/dashboards.yml') as {
      providers: Array<{ options: { path: string } }>;
    };
    const dashboard = mountOf('grafana', 'deploy/grafana/dashboard.json');
    expect(dashboard?.startsWith(`${providers.providers[0]!.options.path}/`)).toBe(true);
    expect(mountOf('grafana', 'deploy/grafana/provisioning/datasources.yml')).toMatch(
      /^\/etc\/grafana\/provisioning\/datasources\//,
    );
    expect(mountOf('grafana', 'deploy/grafana/provisioning/dashboards.yml')).toMatch(
      /^\/etc\/grafana\/provisioning\/dashboards\//,
    );
  });

  it('gives the signing key to users only', () => {
    const holders = Object.entries(defined).filter(
      ([name, service]) =>
        name !== 'keys' &&
        ((service.volumes ?? []).some((volume) => volume.startsWith('keys-private')) ||
          service.environment?.JWT_PRIVATE_KEY_FILE !== undefined),
    );
    expect(holders.map(([name]) => name)).toEqual(['users']);
  });
});
