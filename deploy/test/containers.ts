import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { podman } from '../../scripts/image.mjs';
import { services, upstreamVariables } from '../../scripts/services.mjs';
import { addressesOf } from '../../scripts/system.mjs';

/** A service of docker-compose.yml, as far as running it here needs. */
export interface ComposeService {
  environment?: Record<string, string | number>;
  volumes?: string[];
  command?: string[];
  user?: string;
}

/** docker-compose.yml's services, with `<<: *service` applied as docker compose does. */
export function composeServices(): Record<string, ComposeService> {
  const text = readFileSync(new URL('../../docker-compose.yml', import.meta.url), 'utf8');
  return (parse(text, { merge: true }) as { services: Record<string, ComposeService> }).services;
}

/** What the containers share on this machine: its servers, and names of this run's own. */
export interface Machine {
  portOffset: number;
  databaseUrl: string;
  amqpUrl: string;
  redisUrl: string;
  /** EVENTS_EXCHANGE and REDIS_KEY_PREFIX: what this run makes on the broker and in Redis goes under them. */
  exchange: string;
  redisKeyPrefix: string;
}

/** Metrics 50 ports above a service's own, as scripts/system.mjs places them. */
const METRICS_PORT_SHIFT = 50;

/**
 * `service`'s environment from docker-compose.yml, moved from compose's network onto this machine's: every
 * container shares the host's network, so each takes the ports scripts/system.mjs would give it, and finds
 * the servers and the other services on 127.0.0.1. Fails if a value still names a compose host.
 */
export function hostEnvironment(service: string, defined: ComposeService, machine: Machine): Record<string, string> {
  const composeEnv = Object.fromEntries(
    Object.entries(defined.environment ?? {}).map(([key, value]) => [key, String(value)]),
  );
  const { portOf, urlOf, internalUrlOf } = addressesOf(machine.portOffset);
  const upstreams = Object.fromEntries(
    services
      .filter(({ name }) => name !== 'gateway')
      .flatMap(({ name, internalPort }) =>
        upstreamVariables(name, { url: urlOf(name), internalUrl: internalPort ? internalUrlOf(name) : undefined }),
      ),
  );
  const moved: Record<string, string> = {
    ...upstreams,
    HOST: '127.0.0.1',
    PORT: String(portOf(service)),
    METRICS_PORT: String(portOf(service) + METRICS_PORT_SHIFT),
    INTERNAL_PORT: new URL(internalUrlOf(service)).port,
    DATABASE_URL: machine.databaseUrl,
    AMQP_URL: machine.amqpUrl,
    REDIS_URL: machine.redisUrl,
    // The gateway's address as the services see it on this network.
    TRUST_PROXY: '127.0.0.1',
  };
  const env = Object.fromEntries(
    Object.entries(composeEnv).map(([key, value]) => [key, key in moved ? moved[key]! : value]),
  );
  const composeHosts = Object.keys(composeServices());
  const stray = Object.entries(env).filter(([, value]) =>
    composeHosts.some((host) => new RegExp(`[/@]${host}:\\d`).test(value)),
  );
  if (stray.length > 0) throw new Error(`${service} still names compose hosts: ${JSON.stringify(stray)}`);
  return {
    ...env,
    EVENTS_EXCHANGE: machine.exchange,
    ...(env.REDIS_URL ? { REDIS_KEY_PREFIX: machine.redisKeyPrefix } : {}),
  };
}

/**
 * `defined`'s bind mounts here: each of compose's named volumes becomes the folder of that name under `dir`
 * (a `keys-public:/keys:ro` the folder `dir/keys-public` at /keys).
 */
export function volumeArgs(defined: ComposeService, dir: string): string[] {
  return (defined.volumes ?? []).flatMap((volume) => {
    const [source, target, mode] = volume.split(':');
    if (source!.startsWith('.')) throw new Error(`a bind mount of a repository file is not expected: ${volume}`);
    return ['--volume', `${dir}/${source}:${target}${mode ? `:${mode}` : ''}`];
  });
}

/** Runs `image` detached as `name` on the host's network, with `env` and `extra` arguments; resolves with its id. */
export function runContainer(name: string, image: string, env: Record<string, string>, extra: string[] = []) {
  return podman([
    // Errors still show; not podman's for each container that it found no systemd to time its health check.
    '--log-level',
    'fatal',
    'run',
    '--detach',
    '--name',
    name,
    '--network',
    'host',
    // The limits this process has: podman as root would otherwise raise the open files' past what the machine lets
    // a process raise them to (here 20,000), and runc refuses to start the container.
    '--ulimit',
    'host',
    // No timer: there is no systemd here to run one. The test runs the image's check itself.
    '--health-interval',
    'disable',
    ...Object.entries(env).flatMap(([key, value]) => ['--env', `${key}=${value}`]),
    ...extra,
    image,
  ]);
}

/** The last lines `name` wrote, for a failure's message. */
export async function logsOf(name: string): Promise<string> {
  return podman(['logs', '--tail', '40', name]).catch((error: Error) => `(no logs: ${error.message})`);
}
