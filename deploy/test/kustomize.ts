import { createHash } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
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

interface SecretGenerator {
  name: string;
  /** `.env` files: a `KEY=value` a line, `#` comments and blank lines left out. */
  envs?: string[];
  /** Files, each a key named after the file (`key=path` names it otherwise). */
  files?: string[];
  type?: string;
}

const understood = new Set(['apiVersion', 'kind', 'resources', 'images', 'namespace', 'secretGenerator']);
const understoodImageFields = new Set(['name', 'newName', 'newTag', 'digest']);
const understoodGeneratorFields = new Set(['name', 'envs', 'files', 'type']);
/** The kinds of our manifests that belong to no namespace. */
const clusterScoped = new Set(['Namespace', 'ClusterRole', 'ClusterRoleBinding', 'PriorityClass', 'StorageClass']);

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

/** The object as JSON with every map's keys sorted, as Go's encoding/json writes a map. */
function sortedJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(sortedJson).join(',')}]`;
  if (value !== null && typeof value === 'object')
    return `{${Object.keys(value)
      .sort()
      .map((key) => `${JSON.stringify(key)}:${sortedJson((value as Record<string, unknown>)[key])}`)
      .join(',')}}`;
  return JSON.stringify(value);
}

/**
 * kustomize's name suffix of a generated Secret (api/hasher): the SHA-256 of its kind, type and data as sorted JSON,
 * the first ten hex digits with 0, 1, 3, a and e spelt g, h, k, m and t. Its `name` is always empty there (the
 * hasher looks `metadata/name` up as one field), so two generators with the same content get the same suffix.
 */
function secretSuffix(secret: { type: string; data: Record<string, string> }): string {
  const json = sortedJson({ kind: 'Secret', name: '', type: secret.type, data: secret.data });
  const substitutes: Record<string, string> = { '0': 'g', '1': 'h', '3': 'k', a: 'm', e: 't' };
  return [...createHash('sha256').update(json).digest('hex').slice(0, 10)]
    .map((digit) => substitutes[digit] ?? digit)
    .join('');
}

/** Base64 as kustomize writes a generated value: past 70 characters, in lines of 70, each ended by a newline. */
function base64Lines(value: string): string {
  const encoded = Buffer.from(value).toString('base64');
  if (encoded.length < 70) return encoded;
  return (encoded.match(/.{1,70}/g) ?? []).map((line) => `${line}\n`).join('');
}

function envFileEntries(file: string): Array<[string, string]> {
  return readFileSync(file, 'utf8')
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('#'))
    .map((line) => {
      const equals = line.indexOf('=');
      if (equals < 1) throw new UnsupportedKustomizationError(`${file}: "${line}" is not KEY=value`);
      return [line.slice(0, equals), line.slice(equals + 1)];
    });
}

/** The Secrets of `generators`, named with their hash suffix, and the map from each plain name to it. */
function generateSecrets(
  dir: string,
  generators: SecretGenerator[],
): { secrets: Manifest[]; names: Map<string, string> } {
  const names = new Map<string, string>();
  const secrets = generators.map((generator) => {
    const unknown = Object.keys(generator).filter((field) => !understoodGeneratorFields.has(field));
    if (unknown.length > 0)
      throw new UnsupportedKustomizationError(`secretGenerator: field(s) ${unknown.join(', ')} not supported`);
    const entries: Array<[string, string]> = [
      ...(generator.envs ?? []).flatMap((env) => envFileEntries(join(dir, env))),
      ...(generator.files ?? []).map((file): [string, string] => {
        const [key, path] = file.includes('=') ? (file.split('=', 2) as [string, string]) : [basename(file), file];
        return [key, readFileSync(join(dir, path), 'utf8')];
      }),
    ];
    const data: Record<string, string> = {};
    for (const [key, value] of entries) {
      if (key in data) throw new Error(`secretGenerator ${generator.name}: key ${key} given twice`);
      data[key] = base64Lines(value);
    }
    const type = generator.type ?? 'Opaque';
    const name = `${generator.name}-${secretSuffix({ type, data })}`;
    names.set(generator.name, name);
    return { apiVersion: 'v1', kind: 'Secret', metadata: { name }, type, data } as Manifest;
  });
  return { secrets, names };
}

/** Points every reference to a generated Secret (env, envFrom, volumes) at its suffixed name. */
function renameSecretReferences(manifests: Manifest[], names: Map<string, string>): void {
  const visit = (node: unknown, key?: string): void => {
    if (Array.isArray(node)) return node.forEach((item) => visit(item));
    if (node === null || typeof node !== 'object') return;
    const object = node as Record<string, unknown>;
    if (key === 'secretKeyRef' || key === 'secretRef') {
      const renamed = names.get(object.name as string);
      if (renamed) object.name = renamed;
    }
    if (key === 'secret' && typeof object.secretName === 'string') {
      const renamed = names.get(object.secretName);
      if (renamed) object.secretName = renamed;
    }
    for (const [child, value] of Object.entries(object)) visit(value, child);
  };
  for (const manifest of manifests) if (manifest.kind !== 'Secret') visit(manifest.spec);
}

/** Puts every namespaced object in `namespace`, and names the one Namespace object so, as kustomize does. */
function applyNamespace(manifests: Manifest[], namespace: string): void {
  for (const manifest of manifests) {
    if (manifest.kind === 'Namespace') manifest.metadata.name = namespace;
    else if (!clusterScoped.has(manifest.kind)) manifest.metadata.namespace = namespace;
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
  const generated = generateSecrets(dirname(file), (kustomization.secretGenerator ?? []) as SecretGenerator[]);
  manifests.push(...generated.secrets);
  renameSecretReferences(manifests, generated.names);
  applyImages(manifests, (kustomization.images ?? []) as ImageOverride[]);
  if (typeof kustomization.namespace === 'string') applyNamespace(manifests, kustomization.namespace);

  const ids = manifests.map((manifest) => `${manifest.kind}/${manifest.metadata.name}`);
  const duplicate = ids.find((id, index) => ids.indexOf(id) !== index);
  if (duplicate) throw new Error(`${file}: ${duplicate} is defined more than once`);
  return manifests;
}
