import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { type Manifest, renderKustomization } from './kustomize.js';
import { baseDir, k8sRoot, overlayKustomization, overlayNames, renderOverlay } from './overlays.js';

/**
 * The overlays a platform team deploys through (docs/operations.md, "Running on Kubernetes"): each puts the base in
 * a namespace of its own, pins the image, and generates every Secret the pods read from templates that list each
 * key the pods ask for, and no other.
 */
interface Container {
  name: string;
  image: string;
  env?: Array<{ name: string; value?: string; valueFrom?: { secretKeyRef?: { name: string; key: string } } }>;
  envFrom?: Array<{ secretRef?: { name: string } }>;
  volumeMounts?: Array<{ name: string; mountPath: string }>;
}
interface PodSpec {
  containers: Container[];
  initContainers?: Container[];
  volumes?: Array<{ name: string; secret?: { secretName: string } }>;
}

const podSpecOf = (manifest: Manifest) =>
  (manifest.spec as { template?: { spec?: PodSpec } } | undefined)?.template?.spec;
const containersOf = (pod: PodSpec) => [...(pod.initContainers ?? []), ...pod.containers];

/** Every `name/key` a container reads from a Secret: as env, or as a file of a mounted Secret. */
function secretReads(manifests: Manifest[]): Set<string> {
  const reads = new Set<string>();
  for (const manifest of manifests) {
    const pod = podSpecOf(manifest);
    if (!pod) continue;
    for (const container of containersOf(pod)) {
      for (const variable of container.env ?? []) {
        const ref = variable.valueFrom?.secretKeyRef;
        if (ref) reads.add(`${ref.name}/${ref.key}`);
      }
      // A mounted Secret is read where a *_FILE setting names a file under its mount.
      for (const mount of container.volumeMounts ?? []) {
        const secret = pod.volumes?.find((volume) => volume.name === mount.name)?.secret;
        if (!secret) continue;
        for (const variable of container.env ?? []) {
          if (variable.value?.startsWith(`${mount.mountPath}/`))
            reads.add(`${secret.secretName}/${variable.value.slice(mount.mountPath.length + 1)}`);
        }
      }
    }
  }
  return reads;
}

/** Every `name/key` the rendered Secrets hold. */
const secretKeys = (manifests: Manifest[]) =>
  new Set(
    manifests
      .filter((manifest) => manifest.kind === 'Secret')
      .flatMap((secret) =>
        Object.keys((secret as { data?: object }).data ?? {}).map((key) => `${secret.metadata.name}/${key}`),
      ),
  );

/** A Secret's name without the hash suffix kustomize gives a generated one. */
const unsuffixed = (name: string) => name.replace(/-[a-z0-9]{10}$/, '');

/** The keys of a generator's templates: each `.env` template's KEY=value lines, each file template's name. */
function templateKeys(overlay: string): Set<string> {
  const keys = new Set<string>();
  for (const generator of overlayKustomization(overlay).secretGenerator ?? []) {
    for (const env of generator.envs ?? []) {
      const template = readFileSync(join(k8sRoot, 'overlays', overlay, `${env}.example`), 'utf8');
      for (const line of template.split('\n').filter((text) => /^[A-Z][A-Z0-9_]*=/.test(text)))
        keys.add(`${generator.name}/${line.slice(0, line.indexOf('='))}`);
    }
    for (const file of generator.files ?? []) {
      readFileSync(join(k8sRoot, 'overlays', overlay, `${file}.example`), 'utf8'); // the template exists
      keys.add(`${generator.name}/${file.split('/').at(-1)!}`);
    }
  }
  return keys;
}

const base = renderKustomization(baseDir);
const rendered = new Map(overlayNames.map((overlay) => [overlay, renderOverlay(overlay)]));

describe('the overlays', () => {
  it('are dev and prod, and the base names no namespace', () => {
    expect(overlayNames).toEqual(['dev', 'prod']);
    expect(base.filter((manifest) => 'namespace' in manifest.metadata)).toEqual([]);
    expect(base.filter((manifest) => manifest.kind === 'Namespace')).toEqual([]);
  });

  it.each(overlayNames)('%s puts every object in its own namespace, which it makes', (overlay) => {
    const manifests = rendered.get(overlay)!;
    const namespace = overlayKustomization(overlay).namespace;
    expect(namespace).toBe(`recipes-${overlay}`);
    expect(manifests.filter((manifest) => manifest.kind === 'Namespace').map((m) => m.metadata.name)).toEqual([
      namespace,
    ]);
    for (const manifest of manifests.filter((m) => m.kind !== 'Namespace'))
      expect(manifest.metadata.namespace, `${manifest.kind}/${manifest.metadata.name}`).toBe(namespace);
  });

  it.each(overlayNames)('%s runs every container of a pinned image: a version or a digest, never latest', (overlay) => {
    const images = rendered
      .get(overlay)!
      .flatMap((manifest) => (podSpecOf(manifest) ? containersOf(podSpecOf(manifest)!) : []))
      .map((container) => container.image);
    expect(images.length).toBeGreaterThan(0);
    for (const image of images) {
      const digest = /@sha256:[0-9a-f]{64}$/.test(image);
      const tag = /:([\w][\w.-]{0,127})$/.exec(image.split('/').at(-1)!)?.[1];
      expect(digest || (tag !== undefined && tag !== 'latest' && /^v?\d+\.\d+\.\d+/.test(tag)), image).toBe(true);
    }
    // One image for every service and step: the one a release tested.
    expect(new Set(images).size).toBe(1);
  });

  it.each(overlayNames)(
    '%s generates every Secret key a pod reads, from a template, and no key that nothing reads',
    (overlay) => {
      const manifests = rendered.get(overlay)!;
      const reads = secretReads(manifests);
      const held = secretKeys(manifests);
      expect([...reads].filter((read) => !held.has(read)).sort(), 'read but not generated').toEqual([]);
      expect([...held].filter((key) => !reads.has(key)).sort(), 'generated but never read').toEqual([]);
      // The generated keys are the templates' keys, one for one.
      const unsuffixedKeys = [...held].map((key) => `${unsuffixed(key.split('/')[0]!)}/${key.split('/')[1]}`);
      expect(new Set(unsuffixedKeys)).toEqual(templateKeys(overlay));
      // And what the base reads is what the overlay generates.
      expect(new Set([...secretReads(base)])).toEqual(new Set(unsuffixedKeys));
    },
  );

  it('read the Web Push pair, Redis and the migrator from Secrets, each where it is used', () => {
    const reads = [...secretReads(base)];
    const readers = (key: string) =>
      base
        .filter((manifest) => podSpecOf(manifest) && secretReads([manifest]).has(key))
        .map((manifest) => manifest.metadata.name)
        .sort();
    expect(reads).toEqual(
      expect.arrayContaining([
        'recipes-push/PUSH_VAPID_PUBLIC_KEY',
        'recipes-push/PUSH_VAPID_PRIVATE_KEY',
        'recipes-infrastructure/REDIS_URL',
        'recipes-migration/MIGRATION_DATABASE_URL',
      ]),
    );
    expect(readers('recipes-push/PUSH_VAPID_PRIVATE_KEY')).toEqual(['notifications']);
    expect(readers('recipes-migration/MIGRATION_DATABASE_URL')).toEqual(['recipes-migrate']);
    expect(readers('recipes-infrastructure/REDIS_URL')).toEqual(['comments', 'gateway', 'users']);
  });

  it('fails the key check on a key read that no template gives', () => {
    const manifests = structuredClone(rendered.get('prod')!);
    const notifications = manifests.find((m) => m.kind === 'Deployment' && m.metadata.name === 'notifications')!;
    const push = podSpecOf(notifications)!.containers[0]!.env!.find((v) => v.name === 'PUSH_VAPID_PRIVATE_KEY')!;
    push.valueFrom!.secretKeyRef!.key = 'PUSH_VAPID_SECRET';
    const held = secretKeys(manifests);
    expect([...secretReads(manifests)].filter((read) => !held.has(read))).toEqual([
      `${push.valueFrom!.secretKeyRef!.name}/PUSH_VAPID_SECRET`,
    ]);
  });
});

/** `kubectl kustomize` (the machines' kubectl): the stand-in renderer must agree with it object for object. */
describe('the stand-in renderer against kubectl kustomize', () => {
  const byId = (manifests: Manifest[]) =>
    new Map(manifests.map((m) => [`${m.kind}/${m.metadata.namespace ?? ''}/${m.metadata.name}`, m]));
  const kustomize = (dir: string) =>
    parseAllDocuments(execFileSync('kubectl', ['kustomize', dir], { encoding: 'utf8' })).map(
      (document) => document.toJS() as Manifest,
    );

  it.each(['base', ...overlayNames])('renders %s as kubectl kustomize does', (name) => {
    const [mine, theirs] =
      name === 'base' ? [base, kustomize(baseDir)] : [rendered.get(name)!, renderOverlay(name, kustomize)];
    expect(byId(mine)).toEqual(byId(theirs));
  });
});
