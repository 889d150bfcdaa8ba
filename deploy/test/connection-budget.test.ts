import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { type Manifest, renderKustomization } from './kustomize.js';
import { baseDir, overlayNames, renderOverlay } from './overlays.js';

/**
 * PostgreSQL's connections at the autoscalers' maximum (docs/operations.md, "The connection budget"): every
 * Deployment that connects, at its HorizontalPodAutoscaler's maxReplicas plus the pod a rollout surges, each pod with
 * its pool (`DATABASE_POOL_MAX`) and its LISTEN connections, plus every Job's pods, stays within the PostgreSQL the
 * ConfigMap's annotations name, less what is kept for operators.
 */

/**
 * The connections a process holds besides its pool, each a LISTEN: the outbox relay's in every service
 * (libs/outbox/src/listener.ts), and the push sender's in notifications (services/notifications/src/push/sender.ts).
 */
const LISTENERS: Record<string, number> = { users: 1, content: 1, comments: 1, collections: 1, notifications: 2 };
/** A migrate step runs one service after another on one connection (libs/db/src/migrate.ts). */
const CONNECTIONS_PER_JOB_POD = 1;

interface Container {
  env?: Array<{ name: string; value?: string; valueFrom?: unknown }>;
  envFrom?: Array<{ configMapRef?: { name: string } }>;
}
interface PodSpec {
  containers: Container[];
  initContainers?: Container[];
}

const podSpecOf = (manifest: Manifest) => (manifest.spec as { template: { spec: PodSpec } }).template.spec;
const envOf = (container: Container) => new Map((container.env ?? []).map((variable) => [variable.name, variable]));
const connects = (container: Container) =>
  envOf(container).has('DATABASE_URL') || envOf(container).has('MIGRATION_DATABASE_URL');

interface Line {
  workload: string;
  pods: number;
  perPod: number;
}

/** Each workload's share at the autoscalers' maximum, and the limit the ConfigMap's annotations set. */
function connectionBudget(manifests: Manifest[]): { lines: Line[]; total: number; limit: number } {
  const config = manifests.find((m) => m.kind === 'ConfigMap' && m.metadata.name === 'recipes-config')!;
  const annotations = (config.metadata as { annotations?: Record<string, string> }).annotations ?? {};
  const max = Number(annotations['recipes/postgres-max-connections']);
  const reserved = Number(annotations['recipes/postgres-reserved-connections']);
  if (!Number.isInteger(max) || !Number.isInteger(reserved))
    throw new Error('recipes-config: the annotations recipes/postgres-max-connections and -reserved-connections');
  if ('DATABASE_POOL_MAX' in ((config as { data?: object }).data ?? {}))
    throw new Error('recipes-config: DATABASE_POOL_MAX is set per Deployment, not for all');

  const lines: Line[] = [];
  for (const deployment of manifests.filter((m) => m.kind === 'Deployment')) {
    const { name } = deployment.metadata;
    const pod = podSpecOf(deployment);
    const [main, ...others] = pod.containers;
    if (others.some(connects)) throw new Error(`${name}: a second container with a database connection`);
    if (!main || !connects(main)) continue;
    const pool = Number(envOf(main).get('DATABASE_POOL_MAX')?.value);
    if (!Number.isInteger(pool) || pool < 1) throw new Error(`${name}: DATABASE_POOL_MAX is not set on its container`);
    const listeners = LISTENERS[name];
    if (listeners === undefined) throw new Error(`${name}: how many LISTEN connections it holds is not known here`);
    const autoscaler = manifests.find(
      (m) =>
        m.kind === 'HorizontalPodAutoscaler' &&
        (m.spec as { scaleTargetRef: { kind: string; name: string } }).scaleTargetRef.name === name,
    );
    if (!autoscaler) throw new Error(`${name}: no HorizontalPodAutoscaler, so no maximum`);
    const { maxReplicas } = autoscaler.spec as { maxReplicas: number };
    const surge = (deployment.spec as { strategy?: { rollingUpdate?: { maxSurge?: number | string } } }).strategy
      ?.rollingUpdate?.maxSurge;
    // A percentage rounds up, as the Deployment controller rounds it; unset, Kubernetes' 25%.
    const surgePods = typeof surge === 'number' ? surge : Math.ceil((maxReplicas * parseInt(surge ?? '25%', 10)) / 100);
    // Init containers run one at a time, each done before the service starts: a pod's peak is the larger.
    const perPod = Math.max(pool + listeners, (pod.initContainers ?? []).some(connects) ? 1 : 0);
    lines.push({ workload: name, pods: maxReplicas + surgePods, perPod });
  }
  for (const job of manifests.filter((m) => m.kind === 'Job')) {
    if (!podSpecOf(job).containers.some(connects)) continue;
    const parallelism = (job.spec as { parallelism?: number }).parallelism ?? 1;
    lines.push({ workload: `Job/${job.metadata.name}`, pods: parallelism, perPod: CONNECTIONS_PER_JOB_POD });
  }
  const total = lines.reduce((sum, line) => sum + line.pods * line.perPod, 0);
  return { lines, total, limit: max - reserved };
}

const base = renderKustomization(baseDir);
const targets: Array<[string, Manifest[]]> = [
  ['base', base],
  ...overlayNames.map((overlay): [string, Manifest[]] => [overlay, renderOverlay(overlay)]),
];

describe('the connection budget', () => {
  it.each(targets)(
    'holds in %s at every autoscaler’s maximum, a rollout’s surge and the migrate Job',
    (_, manifests) => {
      const { lines, total, limit } = connectionBudget(manifests);
      // Every backend service, and the migrate Job.
      expect(lines.map((line) => line.workload).sort()).toEqual([
        'Job/recipes-migrate',
        'collections',
        'comments',
        'content',
        'notifications',
        'users',
      ]);
      expect(total, JSON.stringify(lines)).toBeLessThanOrEqual(limit);
    },
  );

  it('is the one docs/operations.md states, figure for figure', () => {
    const { lines, total, limit } = connectionBudget(base);
    const doc = readFileSync(new URL('../../docs/operations.md', import.meta.url), 'utf8');
    expect(doc).toContain(`\`max_connections\` = ${limit + 20}`);
    expect(doc).toContain(`${total} at most`);
    for (const line of lines.filter((l) => !l.workload.startsWith('Job/')))
      expect(doc, line.workload).toMatch(
        new RegExp(
          `\\| \`${line.workload}\` \\| ${line.perPod - LISTENERS[line.workload]!} \\| ${LISTENERS[line.workload]} \\|`,
        ),
      );
  });

  it.each(['users', 'notifications'])('fails once the pool of %s is raised by one', (name) => {
    const manifests = structuredClone(base);
    const deployment = manifests.find((m) => m.kind === 'Deployment' && m.metadata.name === name)!;
    const pool = envOf(podSpecOf(deployment).containers[0]!).get('DATABASE_POOL_MAX')!;
    pool.value = String(Number(pool.value) + 1);
    const { total, limit } = connectionBudget(manifests);
    expect(total).toBeGreaterThan(limit);
  });

  it('fails once an autoscaler may add a replica, or the database is smaller', () => {
    const more = structuredClone(base);
    const autoscaler = more.find((m) => m.kind === 'HorizontalPodAutoscaler' && m.metadata.name === 'content')!;
    (autoscaler.spec as { maxReplicas: number }).maxReplicas += 1;
    expect(connectionBudget(more).total).toBeGreaterThan(connectionBudget(more).limit);

    const smaller = structuredClone(base);
    const config = smaller.find((m) => m.kind === 'ConfigMap' && m.metadata.name === 'recipes-config')!;
    (config.metadata as { annotations: Record<string, string> }).annotations['recipes/postgres-max-connections'] =
      '200';
    expect(connectionBudget(smaller).total).toBeGreaterThan(connectionBudget(smaller).limit);
  });

  it('refuses a Deployment that connects with no pool of its own', () => {
    const manifests = structuredClone(base);
    const deployment = manifests.find((m) => m.kind === 'Deployment' && m.metadata.name === 'comments')!;
    const container = podSpecOf(deployment).containers[0]!;
    container.env = container.env!.filter((variable) => variable.name !== 'DATABASE_POOL_MAX');
    expect(() => connectionBudget(manifests)).toThrow(/comments: DATABASE_POOL_MAX is not set/);
  });
});
