import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Deployment } from 'kubernetes-types/apps/v1';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { type Manifest, renderKustomization } from './kustomize.js';
import { baseDir, overlayNames, renderOverlay } from './overlays.js';

/**
 * Every rendered object held to the Kubernetes API's own types (kubernetes-types, generated from the API's OpenAPI
 * document, 1.30): each becomes an object literal typed as its kind, and TypeScript's checker refuses a field the
 * type does not have (excess property checks reach every nested literal), a value of the wrong type and a required
 * field left out. A misspelt or misplaced field, which kubectl's client-side apply would drop or the server refuse,
 * fails here first. The Prometheus Operator's kinds are custom resources that kubernetes-types does not describe:
 * only their metadata is checked.
 */
const TYPES: Record<string, { module: string; type: string }> = {
  'v1/ConfigMap': { module: 'kubernetes-types/core/v1', type: 'ConfigMap' },
  'v1/Namespace': { module: 'kubernetes-types/core/v1', type: 'Namespace' },
  'v1/Secret': { module: 'kubernetes-types/core/v1', type: 'Secret' },
  'v1/Service': { module: 'kubernetes-types/core/v1', type: 'Service' },
  'apps/v1/Deployment': { module: 'kubernetes-types/apps/v1', type: 'Deployment' },
  'batch/v1/Job': { module: 'kubernetes-types/batch/v1', type: 'Job' },
  'autoscaling/v2/HorizontalPodAutoscaler': {
    module: 'kubernetes-types/autoscaling/v2',
    type: 'HorizontalPodAutoscaler',
  },
  'policy/v1/PodDisruptionBudget': { module: 'kubernetes-types/policy/v1', type: 'PodDisruptionBudget' },
  'networking.k8s.io/v1/Ingress': { module: 'kubernetes-types/networking/v1', type: 'Ingress' },
  'networking.k8s.io/v1/NetworkPolicy': { module: 'kubernetes-types/networking/v1', type: 'NetworkPolicy' },
};
/** Custom resources, whose spec no type here describes. */
const CUSTOM = new Set(['monitoring.coreos.com/v1/PodMonitor', 'monitoring.coreos.com/v1/PrometheusRule']);
const OBJECT_META = { module: 'kubernetes-types/meta/v1', type: 'ObjectMeta' };

/** A file beside this one, so that `kubernetes-types` resolves from the repository's node_modules. */
const virtualFile = join(dirname(fileURLToPath(import.meta.url)), '__rendered_manifests__.ts');

/** The checker's complaints about `manifests`, each naming the object it is about. */
function apiTypeErrors(manifests: Manifest[]): string[] {
  const unknownKinds = manifests
    .map((manifest) => `${manifest.apiVersion}/${manifest.kind}`)
    .filter((id) => !(id in TYPES) && !CUSTOM.has(id));
  if (unknownKinds.length > 0) return unknownKinds.map((id) => `${id}: no type to check it against`);

  const imports = new Map<string, Set<string>>();
  const use = ({ module, type }: { module: string; type: string }) => {
    imports.set(module, (imports.get(module) ?? new Set()).add(type));
    return type;
  };
  const names: string[] = [];
  const declarations = manifests.map((manifest, index) => {
    const id = `${manifest.apiVersion}/${manifest.kind}`;
    names.push(`${manifest.kind}/${manifest.metadata.name}`);
    if (CUSTOM.has(id)) {
      const { metadata, ...rest } = manifest;
      return `export const m${index}: { metadata: ${use(OBJECT_META)}; [field: string]: unknown } = ${JSON.stringify({ ...rest, metadata })};`;
    }
    return `export const m${index}: ${use(TYPES[id]!)} = ${JSON.stringify(manifest)};`;
  });
  const source = [
    ...[...imports].map(([module, types]) => `import type { ${[...types].join(', ')} } from '${module}';`),
    // One declaration a line: a diagnostic's line names its object.
    ...declarations,
  ].join('\n');
  const firstDeclarationLine = imports.size;

  const options: ts.CompilerOptions = {
    strict: true,
    noEmit: true,
    skipLibCheck: true,
    types: [],
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.ESNext,
    moduleResolution: ts.ModuleResolutionKind.Bundler,
  };
  const host = ts.createCompilerHost(options);
  const getSourceFile = host.getSourceFile.bind(host);
  host.getSourceFile = (file, language, ...rest) =>
    file === virtualFile ? ts.createSourceFile(file, source, language) : getSourceFile(file, language, ...rest);
  const fileExists = host.fileExists.bind(host);
  host.fileExists = (file) => file === virtualFile || fileExists(file);
  const program = ts.createProgram([virtualFile], options, host);
  return ts.getPreEmitDiagnostics(program).map((diagnostic) => {
    const message = ts.flattenDiagnosticMessageText(diagnostic.messageText, ' ');
    if (!diagnostic.file || diagnostic.start === undefined) return message;
    const { line } = diagnostic.file.getLineAndCharacterOfPosition(diagnostic.start);
    const object = names[line - firstDeclarationLine] ?? `line ${line + 1}`;
    return `${object}: ${message}`;
  });
}

const base = renderKustomization(baseDir);

describe('every object against the Kubernetes API’s types', () => {
  it('base', () => {
    expect(apiTypeErrors(base)).toEqual([]);
  });

  it.each(overlayNames)('overlay %s', (overlay) => {
    expect(apiTypeErrors(renderOverlay(overlay))).toEqual([]);
  });

  it('refuses an unknown field at any depth, a wrong type, and a kind it has no type for', () => {
    const broken = structuredClone(base);
    const users = broken.find((m) => m.kind === 'Deployment' && m.metadata.name === 'users') as unknown as Deployment;
    Object.assign(users.spec!.template.spec!.containers[0]!, {
      envFrom: [{ configMapRefs: { name: 'recipes-config' } }],
    });
    const job = broken.find((m) => m.kind === 'Job')!;
    (job.spec as Record<string, unknown>).backoffLimit = 'twice';
    const monitor = broken.find((m) => m.kind === 'PodMonitor')!;
    (monitor.metadata as Record<string, unknown>).label = { wrong: 'place' };
    const errors = apiTypeErrors(broken).sort();
    expect(errors).toEqual([
      expect.stringMatching(/^Deployment\/users: .*configMapRefs.* does not exist in type 'EnvFromSource'/),
      expect.stringMatching(/^Job\/recipes-migrate: Type 'string' is not assignable to type 'number'/),
      expect.stringMatching(/^PodMonitor\/recipes: .*label.* does not exist in type 'ObjectMeta'/),
    ]);
    expect(apiTypeErrors([{ apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w' } }])).toEqual([
      'example.com/v1/Widget: no type to check it against',
    ]);
  });
});
