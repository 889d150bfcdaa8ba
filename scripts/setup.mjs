// Makes a fresh clone runnable: installs dependencies when the lock file changed, then builds
// incrementally (tsc -b skips what is up to date). Uses nothing but Node itself.
import { execSync } from 'node:child_process';
import { existsSync, rmSync, statSync } from 'node:fs';

const installed = 'node_modules/.package-lock.json';
if (!existsSync(installed) || statSync('package-lock.json').mtimeMs > statSync(installed).mtimeMs) {
  console.log('setup: installing dependencies (npm ci)');
  execSync('npm ci --no-audit --no-fund', { stdio: 'inherit' });
}
execSync('npx tsc -b', { stdio: 'inherit' });

// Pact files merge into what is there: a test run starts from none, so no stale interaction lingers.
if (process.argv.includes('--fresh-pacts')) rmSync('pacts', { recursive: true, force: true });
