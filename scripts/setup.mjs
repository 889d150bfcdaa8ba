// Makes a fresh clone runnable: installs dependencies when the lock file changed, then builds
// incrementally (tsc -b skips what is up to date) and writes the merged OpenAPI document; for a test run, also the browser, Prometheus, Redis and HAProxy;
// for `npm start`, HAProxy and the PostgreSQL and RabbitMQ it runs against; for the bench, HAProxy. Uses nothing but
// Node itself.
import { execSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { reachable } from './reachable.mjs';

const installed = 'node_modules/.package-lock.json';
if (!existsSync(installed) || statSync('package-lock.json').mtimeMs > statSync(installed).mtimeMs) {
  console.log('setup: installing dependencies (npm ci)');
  execSync('npm ci --no-audit --no-fund', { stdio: 'inherit' });
}
// The build: the code, then the API's one OpenAPI document merged from the built services (the gateway serves it).
execSync('npm run build --silent', { stdio: 'inherit' });

// Pact files merge into what is there: a test run starts from none, so no stale interaction lingers.
if (process.argv.includes('--fresh-pacts')) rmSync('pacts', { recursive: true, force: true });

/**
 * Installs Debian's `pkg` for `purpose` where `installed` is missing and the machine allows (apt-get, as root);
 * elsewhere says what to install.
 */
function installDebianPackage(installed, pkg, purpose) {
  if (existsSync(installed)) return;
  if (process.getuid?.() === 0 && existsSync('/usr/bin/apt-get')) {
    console.log(`setup: installing ${pkg} for ${purpose} (apt-get)`);
    const apt = { stdio: ['ignore', 'ignore', 'inherit'], env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } };
    execSync('apt-get update -qq', apt);
    execSync(`apt-get install -y -qq --no-install-recommends ${pkg}`, apt);
  } else {
    console.warn(
      `setup: ${installed} is missing: install Debian's ${pkg} (apt-get install --no-install-recommends ${pkg}) for ${purpose}`,
    );
  }
}

// The browser test (test/browser-stream.test.ts) drives Debian's Chromium; the rules tests
// (deploy/test/prometheus-rules.test.ts, test/alerts.test.ts) run Debian's promtool and prometheus. A test
// run installs them where they are missing and the machine allows; elsewhere those tests fail.
if (process.argv.includes('--browser')) installDebianPackage('/usr/bin/chromium', 'chromium', 'the browser test');
if (process.argv.includes('--prometheus'))
  installDebianPackage('/usr/bin/promtool', 'prometheus', 'the alert rule tests');
// HAProxy (Debian's haproxy), the front `npm start` puts before the gateway where it is installed (scripts/front.mjs):
// for its test (test/start.test.ts) and the bench's overload part, which measures it beside the gateway alone.
if (process.argv.includes('--haproxy'))
  installDebianPackage('/usr/sbin/haproxy', 'haproxy', 'the front before the gateway');
// The image test (deploy/test/image.test.ts) builds deploy/Dockerfile with podman (buildah underneath), runs it
// with runc, and makes the base image with debootstrap where podman has none (scripts/image.mjs).
if (process.argv.includes('--image'))
  for (const [installed, pkg] of [
    ['/usr/bin/podman', 'podman'],
    ['/usr/bin/buildah', 'buildah'],
    ['/usr/sbin/runc', 'runc'],
    ['/usr/sbin/debootstrap', 'debootstrap'],
  ])
    installDebianPackage(installed, pkg, 'the image test');

// The shared-limits tests (test/shared-limits.test.ts, the users service's login guard) count in a Redis:
// REDIS_URL's, else one on 127.0.0.1:6379, started here (Debian's redis-server, installed where missing)
// when none answers there.
if (process.argv.includes('--redis') && !process.env.REDIS_URL) {
  const answers = () => {
    try {
      return (
        execSync('redis-cli -h 127.0.0.1 -p 6379 ping', { stdio: ['ignore', 'pipe', 'ignore'] })
          .toString()
          .trim() === 'PONG'
      );
    } catch {
      return false;
    }
  };
  installDebianPackage('/usr/bin/redis-server', 'redis-server', 'the shared-limits tests');
  if (!answers() && existsSync('/usr/bin/redis-server')) {
    console.log('setup: starting redis-server on 127.0.0.1:6379');
    execSync("redis-server --bind 127.0.0.1 --port 6379 --daemonize yes --save '' --appendonly no", {
      stdio: 'inherit',
    });
    for (let tries = 0; tries < 50 && !answers(); tries++) execSync('sleep 0.1');
  }
}

// `npm start` on a fresh machine: PostgreSQL and RabbitMQ where DATABASE_URL and AMQP_URL name this machine and
// nothing answers there, installed (Debian's packages, as root) where missing, then started. Elsewhere
// scripts/start.mjs says what to start.
if (process.argv.includes('--servers')) {
  const database = new URL(process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/recipes');
  const broker = new URL((process.env.AMQP_URL ?? 'amqp://guest:guest@127.0.0.1:5672').split(',')[0]);
  if (isLocal(database) && !(await reachable(database, 5432))) startPostgres();
  if (isLocal(broker) && !(await reachable(broker, 5672))) startRabbitMq();
}

function isLocal(url) {
  return ['127.0.0.1', 'localhost', '[::1]'].includes(url.hostname);
}

function waitFor(command, seconds) {
  for (let tries = 0; tries < seconds * 2; tries++) {
    try {
      return execSync(command, { stdio: 'ignore' });
    } catch {
      execSync('sleep 0.5');
    }
  }
  throw new Error(`setup: "${command}" still fails after ${seconds} s`);
}

function startPostgres() {
  const freshlyInstalled = !existsSync('/usr/bin/pg_ctlcluster');
  installDebianPackage('/usr/bin/pg_ctlcluster', 'postgresql', 'npm start');
  if (!existsSync('/usr/bin/pg_ctlcluster')) return;
  const [version] = readdirSync('/etc/postgresql');
  if (freshlyInstalled) {
    // The default DATABASE_URL has no password: a cluster this script made trusts connections from this machine
    // only, as the development machines' clusters do.
    const hba = `/etc/postgresql/${version}/main/pg_hba.conf`;
    writeFileSync(
      hba,
      readFileSync(hba, 'utf8').replace(/^(host\s+all\s+all\s+(?:127\.0\.0\.1\/32|::1\/128)\s+)\S+$/gm, '$1trust'),
    );
  }
  console.log(`setup: starting PostgreSQL ${version} (pg_ctlcluster ${version} main start)`);
  execSync(`pg_ctlcluster --skip-systemctl-redirect ${version} main start`, { stdio: 'inherit' });
  waitFor('pg_isready -h 127.0.0.1 -p 5432 -q', 30);
}

function startRabbitMq() {
  installDebianPackage('/usr/sbin/rabbitmq-server', 'rabbitmq-server', 'npm start');
  if (!existsSync('/usr/sbin/rabbitmq-server')) return;
  console.log('setup: starting RabbitMQ (rabbitmq-server -detached)');
  execSync('rabbitmq-server -detached', { stdio: 'inherit' });
  waitFor('rabbitmqctl -q await_startup', 60);
}
