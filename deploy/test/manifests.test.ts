import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { services } from '../../scripts/services.mjs';
import { type Manifest, renderKustomization, UnsupportedKustomizationError } from './kustomize.js';

interface EnvVar {
  name: string;
  value?: string;
  valueFrom?: { secretKeyRef?: { name: string; key: string }; configMapKeyRef?: { name: string; key: string } };
}
interface Probe {
  httpGet?: { path: string; port: number | string };
}
interface Container {
  name: string;
  image: string;
  env?: EnvVar[];
  envFrom?: Array<{ configMapRef?: { name: string }; secretRef?: { name: string } }>;
  ports?: Array<{ name?: string; containerPort: number }>;
  livenessProbe?: Probe;
  readinessProbe?: Probe;
  resources?: { requests?: Record<string, string>; limits?: Record<string, string> };
  volumeMounts?: Array<{ name: string; mountPath: string }>;
}
interface PodTemplate {
  metadata: { labels: Record<string, string>; annotations?: Record<string, string> };
  spec: { containers: Container[]; volumes?: Array<{ name: string; secret?: { secretName: string } }> };
}

const base = fileURLToPath(new URL('../k8s/base', import.meta.url));
const manifests = renderKustomization(base);
const METRICS_PORT = 9464;
const PRIVATE_KEY_SECRET = 'recipes-jwt-private';
const PUBLIC_KEY_SECRET = 'recipes-jwt-public';
const backends = services.filter((service) => service.name !== 'gateway');
const withInternalRoutes = services.filter((service) => service.internalPort !== undefined);
const internalPortOf = (name: string) => services.find((service) => service.name === name)?.internalPort;

interface NetworkPolicy {
  metadata: { name: string };
  spec: {
    podSelector: { matchExpressions: Array<{ key: string; operator: string; values: string[] }> };
    ingress: Array<{ from?: unknown[]; ports?: Array<{ port: string | number }> }>;
  };
}

interface SpreadConstraint {
  maxSkew: number;
  topologyKey: string;
  whenUnsatisfiable: string;
  labelSelector: { matchLabels: Record<string, string> };
}
/**
 * The processes that count rate limits or failed logins: the gateway, users (logins, registrations) and comments (per
 * caller).
 */
const COUNTING_LIMITS = ['gateway', 'users', 'comments'];

const find = (kind: string, name: string) =>
  manifests.find((manifest) => manifest.kind === kind && manifest.metadata.name === name);
const workloads = manifests.filter((manifest) =>
  ['Deployment', 'StatefulSet', 'DaemonSet', 'Job', 'CronJob'].includes(manifest.kind),
);
const podOf = (manifest: Manifest) => (manifest.spec as { template: PodTemplate }).template;
const configMap = (name: string) =>
  (find('ConfigMap', name) as { data: Record<string, string> } | undefined)?.data ?? {};

/** The container's environment as the kubelet would build it: ConfigMaps first, then its own `env`. */
function environment(container: Container): Map<string, EnvVar> {
  const variables = new Map<string, EnvVar>();
  for (const source of container.envFrom ?? []) {
    if (source.configMapRef)
      for (const [name, value] of Object.entries(configMap(source.configMapRef.name)))
        variables.set(name, { name, value });
  }
  for (const variable of container.env ?? []) variables.set(variable.name, variable);
  return variables;
}

/** A probe's port as a number, resolving a named port against the container's ports. */
function probePort(container: Container, probe: Probe | undefined): number | undefined {
  const port = probe?.httpGet?.port;
  return typeof port === 'number' ? port : container.ports?.find((candidate) => candidate.name === port)?.containerPort;
}

/** Whether `pod` can read the secret `secretName` as a file, and at which mount path. */
function secretMountPath(pod: PodTemplate, secretName: string): string | undefined {
  const volume = pod.spec.volumes?.find((candidate) => candidate.secret?.secretName === secretName);
  return (
    volume &&
    pod.spec.containers.flatMap((container) => container.volumeMounts ?? []).find((mount) => mount.name === volume.name)
      ?.mountPath
  );
}

describe('the kustomize base', () => {
  it.each(services)('runs $name as a Deployment with probes on its health endpoints, on its port', ({ name, port }) => {
    const deployment = find('Deployment', name);
    expect(deployment, `Deployment ${name}`).toBeDefined();
    const pod = podOf(deployment!);
    const container = pod.spec.containers[0]!;
    // The base names the image only; each overlay pins its registry and tag (overlays.test.ts).
    expect(container.image).toBe('recipes-service');
    const env = environment(container);
    expect(env.get('SERVICE')?.value).toBe(name);
    expect(Number(env.get('PORT')?.value)).toBe(port);
    expect(env.get('HOST')?.value).toBe('0.0.0.0');
    expect(container.livenessProbe?.httpGet?.path).toBe('/health/live');
    expect(container.readinessProbe?.httpGet?.path).toBe('/health/ready');
    expect(probePort(container, container.livenessProbe)).toBe(port);
    expect(probePort(container, container.readinessProbe)).toBe(port);
    expect(container.resources?.requests).toMatchObject({ cpu: expect.any(String), memory: expect.any(String) });
    expect(container.resources?.limits).toMatchObject({ memory: expect.any(String) });
  });

  it.each(services)('gives $name a Service onto its pods and an autoscaler for its Deployment', ({ name }) => {
    const pod = podOf(find('Deployment', name)!);
    const service = find('Service', name) as
      | {
          spec: {
            type?: string;
            selector: Record<string, string>;
            ports: Array<{ name: string; targetPort: string | number }>;
          };
        }
      | undefined;
    expect(service, `Service ${name}`).toBeDefined();
    expect(pod.metadata.labels).toMatchObject(service!.spec.selector);
    expect(service!.spec.ports.map((servicePort) => servicePort.targetPort)).toEqual(
      internalPortOf(name) === undefined ? ['http'] : ['http', 'internal'],
    );
    const autoscaler = find('HorizontalPodAutoscaler', name) as
      { apiVersion: string; spec: { scaleTargetRef: object; minReplicas: number; maxReplicas: number } } | undefined;
    expect(autoscaler, `HorizontalPodAutoscaler ${name}`).toBeDefined();
    expect(autoscaler!.apiVersion).toBe('autoscaling/v2');
    expect(autoscaler!.spec.scaleTargetRef).toEqual({ apiVersion: 'apps/v1', kind: 'Deployment', name });
    expect(autoscaler!.spec.minReplicas).toBeLessThanOrEqual(autoscaler!.spec.maxReplicas);
    // The autoscaler owns the count: a replicas field would reset it on every apply.
    expect((find('Deployment', name)!.spec as { replicas?: number }).replicas).toBeUndefined();
  });

  it.each(services)(
    'spreads the replicas of $name over nodes, and lets a drain take one of them at a time',
    ({ name }) => {
      const pod = podOf(find('Deployment', name)!) as PodTemplate & {
        spec: { topologySpreadConstraints?: SpreadConstraint[] };
      };
      const byNode = pod.spec.topologySpreadConstraints?.find(
        (constraint) => constraint.topologyKey === 'kubernetes.io/hostname',
      );
      expect(byNode, `${name}: topologySpreadConstraints by kubernetes.io/hostname`).toMatchObject({
        maxSkew: 1,
        whenUnsatisfiable: 'DoNotSchedule',
      });
      expect(pod.metadata.labels).toMatchObject(byNode!.labelSelector.matchLabels);
      const budget = find('PodDisruptionBudget', name) as
        | { apiVersion: string; spec: { maxUnavailable?: number; selector: { matchLabels: Record<string, string> } } }
        | undefined;
      expect(budget, `PodDisruptionBudget ${name}`).toBeDefined();
      expect(budget!.apiVersion).toBe('policy/v1');
      expect(pod.metadata.labels).toMatchObject(budget!.spec.selector.matchLabels);
      expect(budget!.spec.maxUnavailable).toBe(1);
      // One down of at least two: one still serves.
      expect(
        (find('HorizontalPodAutoscaler', name) as { spec: { minReplicas: number } }).spec.minReplicas,
      ).toBeGreaterThanOrEqual(2);
    },
  );

  it.each(COUNTING_LIMITS)(
    'hands %s the shared store where every instance counts its limits, from a Secret',
    (name) => {
      const env = environment(podOf(find('Deployment', name)!).spec.containers[0]!);
      expect(env.get('REDIS_URL')?.valueFrom?.secretKeyRef, `${name} REDIS_URL`).toEqual({
        name: 'recipes-infrastructure',
        key: 'REDIS_URL',
      });
    },
  );

  it.each(services)('serves metrics of $name on a named pod port, annotated for scraping', ({ name }) => {
    const pod = podOf(find('Deployment', name)!);
    const container = pod.spec.containers[0]!;
    expect(Number(environment(container).get('METRICS_PORT')?.value)).toBe(METRICS_PORT);
    expect(container.ports).toContainEqual({ name: 'metrics', containerPort: METRICS_PORT });
    expect(pod.metadata.annotations).toMatchObject({
      'prometheus.io/scrape': 'true',
      'prometheus.io/port': String(METRICS_PORT),
    });
  });

  it.each(backends)(
    'hands $name its database and broker URLs from a Secret, and the public key as a file',
    ({ name }) => {
      const pod = podOf(find('Deployment', name)!);
      const env = environment(pod.spec.containers[0]!);
      for (const variable of ['DATABASE_URL', 'AMQP_URL']) {
        expect(env.get(variable)?.valueFrom?.secretKeyRef, `${name} ${variable}`).toMatchObject({ key: variable });
      }
      const mountPath = secretMountPath(pod, PUBLIC_KEY_SECRET);
      expect(mountPath, `${name} mounts ${PUBLIC_KEY_SECRET}`).toBeDefined();
      expect(env.get('JWT_PUBLIC_KEY_FILE')?.value?.startsWith(`${mountPath}/`)).toBe(true);
    },
  );

  it.each(backends)(
    'starts $name only on a schema made for its code: migrations are the Job’s, the pod waits for them',
    ({ name }) => {
      const pod = podOf(find('Deployment', name)!) as PodTemplate & { spec: { initContainers?: Container[] } };
      const env = environment(pod.spec.containers[0]!);
      expect(env.get('MIGRATE_ON_START')?.value).toBe('false');
      expect(env.has('MIGRATION_DATABASE_URL')).toBe(false);
      const [schema, ...others] = pod.spec.initContainers ?? [];
      expect(others).toEqual([]);
      expect((schema as Container & { command?: string[] }).command).toEqual([
        'node',
        `services/${name}/dist/migrate.js`,
        '--wait',
      ]);
      expect(schema!.image).toBe(pod.spec.containers[0]!.image);
      // As the runtime role, the service's own.
      expect(environment(schema!).get('DATABASE_URL')?.valueFrom?.secretKeyRef).toEqual(
        env.get('DATABASE_URL')?.valueFrom?.secretKeyRef,
      );
    },
  );

  it('migrates every service’s schema in one Job, one after another, as the migrator', () => {
    const job = find('Job', 'recipes-migrate') as
      | (Manifest & { spec: { parallelism?: number; template: PodTemplate & { spec: { restartPolicy: string } } } })
      | undefined;
    expect(job, 'Job recipes-migrate').toBeDefined();
    expect(job!.spec.parallelism ?? 1).toBe(1);
    expect(job!.spec.template.spec.restartPolicy).toBe('Never');
    const [container, ...others] = job!.spec.template.spec.containers as Array<Container & { command: string[] }>;
    expect(others).toEqual([]);
    const script = container!.command.at(-1)!;
    const order = /for service in ([\w ]+); do node services\/\$service\/dist\/migrate\.js \|\| exit 1; done/.exec(
      script,
    );
    expect(order?.[1]?.split(' ')).toEqual(backends.map((backend) => backend.name));
    const env = environment(container!);
    expect(env.get('MIGRATION_DATABASE_URL')?.valueFrom?.secretKeyRef).toEqual({
      name: 'recipes-migration',
      key: 'MIGRATION_DATABASE_URL',
    });
    // Never the runtime role's URL: a migration run as it would fail on the first CREATE.
    expect(env.has('DATABASE_URL')).toBe(false);
  });

  it.each(withInternalRoutes)(
    'serves the internal routes of $name on a port of their own, where the other services look',
    ({ name, port, internalPort }) => {
      const container = podOf(find('Deployment', name)!).spec.containers[0]!;
      expect(Number(environment(container).get('INTERNAL_PORT')?.value)).toBe(internalPort);
      expect(container.ports).toContainEqual({ name: 'internal', containerPort: internalPort });
      const callers = workloads.map((workload) => environment(podOf(workload).spec.containers[0]!));
      const urls = callers
        .map((env) => env.get(`${name.toUpperCase()}_INTERNAL_URL`)?.value)
        .filter((url) => url !== undefined);
      expect(urls.length).toBeGreaterThan(0);
      expect(new Set(urls)).toEqual(new Set([`http://${name}:${internalPort}`]));
      // The gateway's upstream is the public port, never the internal one.
      expect(
        environment(podOf(find('Deployment', 'gateway')!).spec.containers[0]!).get(`${name.toUpperCase()}_URL`)?.value,
      ).toBe(`http://${name}:${port}`);
    },
  );

  it('admits the services’ API only from the gateway, and their internal ports only from the system’s own pods', () => {
    const policies = manifests.filter((manifest) => manifest.kind === 'NetworkPolicy') as unknown as NetworkPolicy[];
    const servicesPolicy = policies.find((policy) => policy.metadata.name === 'recipes-services');
    expect(servicesPolicy).toBeDefined();
    const rules = servicesPolicy!.spec.ingress;
    const admitting = (port: string) =>
      rules.filter((rule) => rule.ports?.some((candidate) => candidate.port === port));
    expect(admitting('http').map((rule) => rule.from)).toEqual([
      [{ podSelector: { matchLabels: { 'app.kubernetes.io/name': 'gateway' } } }],
    ]);
    expect(admitting('internal').map((rule) => rule.from)).toEqual([
      [{ podSelector: { matchLabels: { 'app.kubernetes.io/part-of': 'recipes' } } }],
    ]);
    // Selects every backend's pods, and not the gateway's.
    const selector = servicesPolicy!.spec.podSelector.matchExpressions;
    expect(selector).toContainEqual({ key: 'app.kubernetes.io/name', operator: 'NotIn', values: ['gateway'] });
    for (const { name } of backends)
      expect(podOf(find('Deployment', name)!).metadata.labels).toMatchObject({
        'app.kubernetes.io/part-of': 'recipes',
      });
  });

  it('admits the gateway’s port only from the ingress controller, and every metrics port only from the monitoring namespace', () => {
    const policies = manifests.filter((manifest) => manifest.kind === 'NetworkPolicy') as unknown as NetworkPolicy[];
    const gatewayPolicy = policies.find((policy) => policy.metadata.name === 'recipes-gateway');
    expect(gatewayPolicy).toBeDefined();
    const fromNamespace = (name: string) => [
      { namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': name } } },
    ];
    const admitting = (policy: NetworkPolicy, port: string) =>
      policy.spec.ingress.filter((rule) => rule.ports?.some((candidate) => candidate.port === port));
    expect(admitting(gatewayPolicy!, 'http').map((rule) => rule.from)).toEqual([fromNamespace('ingress-nginx')]);
    // A rule with no `from` admits every source: none may name a port without one.
    for (const policy of policies) {
      expect(
        policy.spec.ingress.filter((rule) => rule.from === undefined),
        policy.metadata.name,
      ).toEqual([]);
      expect(
        admitting(policy, 'metrics').map((rule) => rule.from),
        policy.metadata.name,
      ).toEqual([fromNamespace('monitoring')]);
    }
  });

  it('has the Prometheus Operator scrape the metrics port of every pod of the system', () => {
    const monitor = find('PodMonitor', 'recipes') as unknown as {
      spec: {
        selector: { matchLabels: Record<string, string> };
        podMetricsEndpoints: Array<{ port: string; path: string; honorLabels?: boolean }>;
      };
    };
    expect(monitor, 'PodMonitor recipes').toBeDefined();
    expect(monitor.spec.podMetricsEndpoints).toEqual([
      expect.objectContaining({ port: 'metrics', path: '/metrics', honorLabels: true }),
    ]);
    for (const { name } of services) {
      const pod = podOf(find('Deployment', name)!);
      expect(pod.metadata.labels, name).toMatchObject(monitor.spec.selector.matchLabels);
      expect(pod.spec.containers[0]!.ports, name).toContainEqual({ name: 'metrics', containerPort: METRICS_PORT });
    }
  });

  it('holds the alert rules of deploy/prometheus/rules.yml, unchanged, as a PrometheusRule', () => {
    const rule = find('PrometheusRule', 'recipes') as unknown as { spec: { groups: unknown[] } } | undefined;
    expect(rule, 'PrometheusRule recipes').toBeDefined();
    const source = parse(readFileSync(new URL('../prometheus/rules.yml', import.meta.url), 'utf8')) as {
      groups: unknown[];
    };
    expect(rule!.spec.groups).toEqual(source.groups);
  });

  it('keeps secrets out of the ConfigMaps', () => {
    const keys = manifests
      .filter((manifest) => manifest.kind === 'ConfigMap')
      .flatMap((manifest) => Object.keys((manifest as { data?: object }).data ?? {}));
    expect(keys.filter((key) => /DATABASE_URL|AMQP_URL|PRIVATE|SECRET|PASSWORD/.test(key))).toEqual([]);
  });

  it('mounts the signing key into users and no other workload', () => {
    const holders = workloads.filter((workload) => {
      const pod = podOf(workload);
      return (
        secretMountPath(pod, PRIVATE_KEY_SECRET) !== undefined ||
        pod.spec.volumes?.some((volume) => volume.secret?.secretName === PRIVATE_KEY_SECRET)
      );
    });
    expect(holders.map((workload) => workload.metadata.name)).toEqual(['users']);
    const readers = workloads.filter((workload) =>
      podOf(workload).spec.containers.some((container) => environment(container).has('JWT_PRIVATE_KEY_FILE')),
    );
    expect(readers.map((workload) => workload.metadata.name)).toEqual(['users']);
    const users = podOf(find('Deployment', 'users')!);
    expect(
      environment(users.spec.containers[0]!)
        .get('JWT_PRIVATE_KEY_FILE')
        ?.value?.startsWith(`${secretMountPath(users, PRIVATE_KEY_SECRET)}/`),
    ).toBe(true);
  });

  it('exposes only the gateway, through the Ingress, and never a metrics port through a Service', () => {
    const serviceSpecs = manifests
      .filter((manifest) => manifest.kind === 'Service')
      .map((manifest) => manifest.spec as { type?: string; ports: Array<{ name: string; targetPort: unknown }> });
    expect(serviceSpecs.filter((spec) => spec.type !== undefined && spec.type !== 'ClusterIP')).toEqual([]);
    expect(
      serviceSpecs
        .flatMap((spec) => spec.ports)
        .filter((port) => port.name === 'metrics' || port.targetPort === 'metrics' || port.targetPort === METRICS_PORT),
    ).toEqual([]);
    const ingresses = manifests.filter((manifest) => manifest.kind === 'Ingress');
    const backendsReached = JSON.stringify(ingresses).match(/"service":\{"name":"[^"]+"/g) ?? [];
    expect(ingresses).toHaveLength(1);
    expect([...new Set(backendsReached)]).toEqual(['"service":{"name":"gateway"']);
  });
});

describe('the renderer', () => {
  it('fails on a kustomization field it does not understand, rather than ignoring it', () => {
    const dir = mkdtempSync(join(tmpdir(), 'kustomize-'));
    writeFileSync(
      join(dir, 'kustomization.yaml'),
      'apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources: []\npatches:\n  - path: more-replicas.yaml\n',
    );
    expect(() => renderKustomization(dir)).toThrow(UnsupportedKustomizationError);
    expect(() => renderKustomization(dir)).toThrow(/patches/);
  });

  it('follows resources into another kustomization and overrides images by name', () => {
    const dir = mkdtempSync(join(tmpdir(), 'kustomize-'));
    writeFileSync(
      join(dir, 'kustomization.yaml'),
      `apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources: [${JSON.stringify(relative(dir, base))}]\nimages:\n ` +
        ` - { name: recipes-service, newName: registry.example.com/recipes, newTag: "1.2.3" }\n`,
    );
    const overlaid = renderKustomization(dir);
    expect(overlaid).toHaveLength(manifests.length);
    const images = overlaid
      .filter((manifest) => manifest.kind === 'Deployment')
      .map((manifest) => podOf(manifest).spec.containers[0]!.image);
    expect(new Set(images)).toEqual(new Set(['registry.example.com/recipes:1.2.3']));
  });
});
