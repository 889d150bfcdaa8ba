import { readFileSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { parse, parseAllDocuments } from 'yaml';

/**
 * A stand-in for `kustomize build` where no kustomize binary is available: it follows `kustomization.yaml`
 * for the few fields our manifests use and fails on any other, so a manifest that would need real
 * kustomize features is never silently rendered wrong.
 */

/** A Kubernetes object as parsed from YAML. */
export type Manifest = {
  apiVersion: string;
  kind: string;
  metadata: { name: string; [key: string]: unknown };
  [key: string]: unknown;
};

interface ImageOverride {
  name: string;
  newName?: string;
  newTag?: string;
  digest?: string;
}

const understood = new Set(['apiVersion', 'kind', 'resources', 'images']);
const understoodImageFields = new Set(['name', 'newName', 'newTag', 'digest']);

export class UnsupportedKustomizationError extends Error {
  override name = 'UnsupportedKustomizationError';
}

function readYamlDocuments(file: string): Manifest[] {
  return parseAllDocuments(readFileSync(file, 'utf8')).flatMap((document) => {
    if (document.errors.length > 0) throw new Error(`${file}: ${document.errors[0]!.message}`);
    const value = document.toJS() as Manifest | null;
    return value === null ? [] : [value];
  });
}

/** `nginx`, `nginx:1.27` and `registry/nginx@sha256:…` all name the image `nginx` / `registry/nginx`. */
function imageName(image: string): string {
  const withoutDigest = image.split('@')[0]!;
  const lastSlash = withoutDigest.lastIndexOf('/');
  const colon = withoutDigest.indexOf(':', lastSlash + 1);
  return colon === -1 ? withoutDigest : withoutDigest.slice(0, colon);
}

function overrideImage(image: string, override: ImageOverride): string {
  const name = override.newName ?? imageName(image);
  if (override.digest) return `${name}@${override.digest}`;
  const tag =
    override.newTag ??
    (image.includes(':', image.lastIndexOf('/') + 1) ? image.slice(image.lastIndexOf(':') + 1) : undefined);
  return tag ? `${name}:${tag}` : name;
}

/** The pod spec of a workload, wherever its kind keeps it. */
function podSpecOf(
  manifest: Manifest,
): { containers?: Array<{ image?: string }>; initContainers?: Array<{ image?: string }> } | undefined {
  const spec = manifest.spec as
    { template?: { spec?: object }; jobTemplate?: { spec?: { template?: { spec?: object } } } } | undefined;
  return (spec?.template?.spec ?? spec?.jobTemplate?.spec?.template?.spec) as ReturnType<typeof podSpecOf>;
}

function applyImages(manifests: Manifest[], overrides: ImageOverride[]): void {
  for (const override of overrides) {
    const unknown = Object.keys(override).filter((field) => !understoodImageFields.has(field));
    if (unknown.length > 0)
      throw new UnsupportedKustomizationError(`images: field(s) ${unknown.join(', ')} not supported`);
  }
  for (const manifest of manifests) {
    const pod = podSpecOf(manifest);
    for (const container of [...(pod?.containers ?? []), ...(pod?.initContainers ?? [])]) {
      const override = overrides.find(
        (candidate) => container.image !== undefined && imageName(container.image) === candidate.name,
      );
      if (override && container.image) container.image = overrideImage(container.image, override);
    }
  }
}

/** Renders the kustomization in `dir` (a folder holding `kustomization.yaml`) into its objects, in order. */
export function renderKustomization(dir: string): Manifest[] {
  const file = join(dir, 'kustomization.yaml');
  const kustomization = parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
  const unknown = Object.keys(kustomization).filter((field) => !understood.has(field));
  if (unknown.length > 0) {
    throw new UnsupportedKustomizationError(
      `${file}: field(s) ${unknown.join(', ')} not supported by this renderer (it knows ${[...understood].join(', ')})`,
    );
  }
  if (kustomization.kind !== 'Kustomization')
    throw new UnsupportedKustomizationError(`${file}: kind must be Kustomization`);

  const manifests = ((kustomization.resources ?? []) as string[]).flatMap((resource) => {
    const path = join(dirname(file), resource);
    return statSync(path).isDirectory() ? renderKustomization(path) : readYamlDocuments(path);
  });
  applyImages(manifests, (kustomization.images ?? []) as ImageOverride[]);

  const ids = manifests.map((manifest) => `${manifest.kind}/${manifest.metadata.name}`);
  const duplicate = ids.find((id, index) => ids.indexOf(id) !== index);
  if (duplicate) throw new Error(`${file}: ${duplicate} is defined more than once`);
  return manifests;
}
