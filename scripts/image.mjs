// Builds the service image (deploy/Dockerfile) with podman, which needs no daemon: `node scripts/image.mjs [TAG]`.
// Where podman has no `node:24-bookworm-slim` and cannot pull one, it first makes a local stand-in for it
// (Debian bookworm, this project's Node 24 and npm 11, a `node` user), kept for the next build.
import { spawn } from 'node:child_process';
import {
  chmodSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

/** The tag deploy/Dockerfile's FROM resolves to, and the one a build here makes. */
export const BASE_IMAGE = 'docker.io/library/node:24-bookworm-slim';
export const SERVICE_IMAGE = 'localhost/recipes-service:latest';

/**
 * podman's settings for machines like CI's: no ulimits copied from the host (a container may not raise
 * them), cgroups managed directly (there is no systemd), events in a file. `crun` refuses a hybrid cgroup
 * layout, so every call also names `runc`.
 */
const CONTAINERS_CONF = `[containers]
default_ulimits = []

[engine]
cgroup_manager = "cgroupfs"
events_logger = "file"
runtime = "runc"
`;

function containersConf() {
  const dir = join(tmpdir(), 'recipes-podman');
  mkdirSync(dir, { recursive: true });
  const file = join(dir, 'containers.conf');
  writeFileSync(file, CONTAINERS_CONF);
  return file;
}

/**
 * Runs `command` with `args`, resolving with its standard output (shown instead, with `inherit`); its
 * standard error is shown as it comes. Asynchronous, so that a test's worker stays responsive during a build.
 */
function run(command, args, { inherit = false, env = process.env } = {}) {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { env, stdio: ['ignore', inherit ? 'inherit' : 'pipe', 'inherit'] });
    const chunks = [];
    child.stdout?.on('data', (chunk) => chunks.push(chunk));
    child.once('error', reject);
    child.once('close', (code, signal) => {
      if (code === 0) resolve(Buffer.concat(chunks).toString().trim());
      else reject(new Error(`${command} ${args.join(' ')} failed (${signal ?? code})`));
    });
  });
}

/** Runs podman with `args` and this project's settings, resolving with its standard output. */
export function podman(args, options = {}) {
  return run('podman', ['--runtime', 'runc', ...args], {
    ...options,
    env: { ...process.env, CONTAINERS_CONF: containersConf() },
  });
}

export async function imageExists(name) {
  return podman(['image', 'exists', name]).then(
    () => true,
    () => false,
  );
}

/** The Debian mirror apt uses here, from sources.list or a deb822 `.sources` file (the bookworm suite). */
function debianMirror() {
  const files = [
    '/etc/apt/sources.list',
    ...listDir('/etc/apt/sources.list.d').filter((f) => /\.(list|sources)$/.test(f)),
  ];
  for (const file of files) {
    const text = existsSync(file) ? readFileSync(file, 'utf8') : '';
    const line = /^deb\s+(?:\[[^\]]*\]\s+)?(\S+)\s+bookworm\s/m.exec(text);
    if (line) return line[1];
    for (const stanza of text.split(/\n\s*\n/)) {
      const uri = /^URIs:\s*(\S+)/m.exec(stanza)?.[1];
      if (uri && /^Suites:.*\bbookworm(\s|$)/m.test(stanza)) return uri;
    }
  }
  return 'http://deb.debian.org/debian';
}

function listDir(dir) {
  return existsSync(dir) ? readdirSync(dir).map((name) => join(dir, name)) : [];
}

/** The certificate bundle this machine trusts: the registries may sit behind a proxy only it trusts. */
const caBundle = () => process.env.NODE_EXTRA_CA_CERTS ?? '/etc/ssl/certs/ca-certificates.crt';
const IMAGE_CA_BUNDLE = '/etc/ssl/certs/ca-certificates.crt';

/**
 * The stand-in for the official `node:24-bookworm-slim`, made where podman has none: the same layout
 * (node in /usr/local/bin, npm under /usr/local/lib/node_modules, user `node` uid 1000), from Debian's
 * minimal bookworm, this process's own Node 24, npm 11 from the registry and this machine's CA bundle.
 * Needs root (debootstrap, chroot). Kept between runs.
 */
export async function ensureBaseImage() {
  if (await imageExists(BASE_IMAGE)) return false;
  if (!process.version.startsWith('v24.'))
    throw new Error(`the stand-in base needs Node 24 (the project's, node_modules/.bin/node), not ${process.version}`);
  const root = mkdtempSync(join(tmpdir(), 'recipes-base-'));
  try {
    const mirror = debianMirror();
    console.log(`image: making ${BASE_IMAGE} from Debian bookworm (${mirror}) and Node ${process.version}`);
    await run('debootstrap', ['--variant=minbase', 'bookworm', root, mirror]);
    copyFileSync(process.execPath, join(root, 'usr/local/bin/node'));
    chmodSync(join(root, 'usr/local/bin/node'), 0o755);
    await installNpm(root);
    await run('chroot', [root, 'groupadd', '--gid', '1000', 'node']);
    await run('chroot', [
      root,
      'useradd',
      '--uid',
      '1000',
      '--gid',
      'node',
      '--shell',
      '/bin/bash',
      '--create-home',
      'node',
    ]);
    mkdirSync(join(root, dirname(IMAGE_CA_BUNDLE)), { recursive: true });
    copyFileSync(caBundle(), join(root, IMAGE_CA_BUNDLE));
    // The package lists and caches debootstrap leaves are no part of a slim image.
    for (const dir of ['var/lib/apt/lists', 'var/cache/apt']) rmSync(join(root, dir), { recursive: true, force: true });
    const tar = `${root}.tar`;
    await run('tar', ['-C', root, '-cf', tar, '.']);
    await podman([
      'import',
      '--change',
      `ENV NODE_EXTRA_CA_CERTS=${IMAGE_CA_BUNDLE}`,
      '--change',
      'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin',
      '--change',
      'CMD ["node"]',
      '--quiet',
      tar,
      BASE_IMAGE,
    ]);
    return true;
  } finally {
    rmSync(root, { recursive: true, force: true });
    rmSync(`${root}.tar`, { force: true });
  }
}

/** npm 11 as the official image has it: the package under /usr/local/lib/node_modules, `npm` and `npx` linked. */
async function installNpm(root) {
  const packed = mkdtempSync(join(tmpdir(), 'recipes-npm-'));
  try {
    const file = (await run('npm', ['pack', 'npm@11', '--pack-destination', packed, '--silent'])).split('\n').at(-1);
    const target = join(root, 'usr/local/lib/node_modules/npm');
    mkdirSync(target, { recursive: true });
    await run('tar', ['-xzf', join(packed, file), '-C', target, '--strip-components=1']);
    symlinkSync('../lib/node_modules/npm/bin/npm-cli.js', join(root, 'usr/local/bin/npm'));
    symlinkSync('../lib/node_modules/npm/bin/npx-cli.js', join(root, 'usr/local/bin/npx'));
  } finally {
    rmSync(packed, { recursive: true, force: true });
  }
}

/**
 * Builds deploy/Dockerfile as `tag`, reusing podman's layer cache. Docker's format, since the OCI one
 * drops HEALTHCHECK; never pulls, so the base is the local one.
 */
export async function buildImage(tag = SERVICE_IMAGE, { quiet = false } = {}) {
  await ensureBaseImage();
  await podman(
    [
      'build',
      '--pull=never',
      '--format',
      'docker',
      '--layers',
      ...(quiet ? ['--quiet'] : []),
      '-f',
      'deploy/Dockerfile',
      '-t',
      tag,
      '.',
    ],
    { inherit: !quiet },
  );
  return tag;
}

if (import.meta.url === `file://${process.argv[1]}`) console.log(`image: built ${await buildImage(process.argv[2])}`);
