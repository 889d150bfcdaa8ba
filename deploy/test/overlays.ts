import { cpSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import { type Manifest, renderKustomization } from './kustomize.js';

/** deploy/k8s: the base and its overlays. */
export const k8sRoot = fileURLToPath(new URL('../k8s', import.meta.url));
export const baseDir = join(k8sRoot, 'base');
/** The overlays a platform team deploys through, each naming its namespace. */
export const overlayNames = readdirSync(join(k8sRoot, 'overlays')).sort();

export interface SecretGeneratorEntry {
  name: string;
  envs?: string[];
  files?: string[];
}

/** An overlay's kustomization.yaml, as written. */
export function overlayKustomization(overlay: string): {
  namespace?: string;
  images?: Array<{ name: string; newName?: string; newTag?: string; digest?: string }>;
  secretGenerator?: SecretGeneratorEntry[];
} {
  return parse(readFileSync(join(k8sRoot, 'overlays', overlay, 'kustomization.yaml'), 'utf8')) as ReturnType<
    typeof overlayKustomization
  >;
}

/**
 * Renders `overlay` as a platform team would once its secret files are written: on a copy of deploy/k8s where each
 * `secrets/*.example` template stands in for the file it is the template of (the real ones are never in the
 * repository).
 */
export function renderOverlay(overlay: string, render: (dir: string) => Manifest[] = renderKustomization): Manifest[] {
  const copy = mkdtempSync(join(tmpdir(), 'k8s-overlay-'));
  try {
    cpSync(k8sRoot, copy, { recursive: true });
    const secrets = join(copy, 'overlays', overlay, 'secrets');
    for (const file of readdirSync(secrets).filter((name) => name.endsWith('.example')))
      renameSync(join(secrets, file), join(secrets, file.slice(0, -'.example'.length)));
    return render(join(copy, 'overlays', overlay));
  } finally {
    rmSync(copy, { recursive: true, force: true });
  }
}
