import { realpathSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/** The Node the project pins as a dev dependency (docs/operations.md, "Node"), installed by `npm ci`. */
const pinned = fileURLToPath(new URL('../../../node_modules/node/bin/node', import.meta.url));

describe('the runtime', () => {
  it('is the project’s own Node 24, not whatever the machine has', () => {
    expect(process.versions.node.split('.')[0]).toBe('24');
    expect(realpathSync(process.execPath)).toBe(realpathSync(pinned));
  });
});
