// Makes a fresh clone runnable: installs dependencies when the lock file changed, then builds
// incrementally (tsc -b skips what is up to date); for a test run, also the browser. Uses nothing but Node itself.
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

// The browser test (test/browser-stream.test.ts) drives Debian's Chromium. A test run installs it where it
// is missing and the machine allows (apt-get, as root); elsewhere it says what to install, and that test fails.
const CHROMIUM = '/usr/bin/chromium';
if (process.argv.includes('--browser') && !existsSync(CHROMIUM)) {
  if (process.getuid?.() === 0 && existsSync('/usr/bin/apt-get')) {
    console.log('setup: installing Chromium for the browser test (apt-get)');
    const apt = { stdio: ['ignore', 'ignore', 'inherit'], env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } };
    execSync('apt-get update -qq', apt);
    execSync('apt-get install -y -qq --no-install-recommends chromium', apt);
  } else {
    console.warn(`setup: ${CHROMIUM} is missing: install Debian's chromium (apt-get install --no-install-recommends chromium) for the browser test`);
  }
}
