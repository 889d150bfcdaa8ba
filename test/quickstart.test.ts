import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StartedSystem } from '../scripts/system.mjs';
import { unlimited } from './faults/support.js';
import { startTestSystem } from './support/system.js';

/**
 * docs/api.md's quickstart, run as written: its `sh` block, pasted into bash in an empty folder, against a running
 * system (BASE names its gateway, as the block allows). Two accounts, a stream, a recipe, a mention: the stream
 * shows the notification live, and the inbox lists it.
 */
let system: StartedSystem;
let folder: string;

beforeAll(async () => {
  system = await startTestSystem({ name: 'recipes_quickstart', portOffset: 6300, env: unlimited });
  folder = mkdtempSync(join(tmpdir(), 'quickstart-'));
}, 90_000);
afterAll(async () => {
  await system?.stop();
  rmSync(folder, { recursive: true, force: true });
});

/** The commands of docs/api.md's quickstart. */
function quickstart(): string {
  const api = readFileSync('docs/api.md', 'utf8');
  const block = /^## Quickstart\n[\s\S]*?^```sh\n([\s\S]*?)^```$/m.exec(api)?.[1];
  if (!block) throw new Error('docs/api.md has no Quickstart with a sh block');
  return block;
}

/** Runs `script` in bash as a user pasting it would (no `set -e`): its output and exit code. */
function bash(script: string, env: Record<string, string>) {
  return new Promise<{ stdout: string; stderr: string; code: number | null }>((resolve, reject) => {
    const child = spawn('bash', ['-c', script], { cwd: folder, env: { ...process.env, ...env } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.once('error', reject);
    child.once('exit', (code) => resolve({ stdout, stderr, code }));
  });
}

describe('the quickstart of docs/api.md', () => {
  it('runs as written: the mention arrives live on the stream, and the inbox lists it', async () => {
    const script = quickstart();
    expect(
      script.split('\n').filter((line) => line.trim() !== '' && !line.startsWith('  ')).length,
    ).toBeLessThanOrEqual(10);
    const { stdout, stderr } = await bash(script, { BASE: `${system.urlOf('gateway')}/api` });
    const context = `stdout:\n${stdout}\nstderr:\n${stderr}`;
    // The live event: its name, then its data, a notification of the mention.
    expect(stdout, context).toMatch(
      /^event: notification\ndata: \{.*"type":"mention_recipe_comment".*"username":"ada_\d+"/m,
    );
    // The inbox, through jq.
    expect(stdout, context).toMatch(/"type": "mention_recipe_comment",\s*"actor": "ada_\d+"/);
  }, 60_000);
});
