import { execFile, execFileSync } from 'node:child_process';
import { chownSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** One node of a local RabbitMQ cluster, which the test may stop and start again. */
export interface ClusterNode {
  name: string;
  url: string;
  /** Stops the broker on the node (its Erlang node stays up): every connection to it drops. */
  stop(): Promise<void>;
  /** Starts it again; resolves once it serves and has rejoined. */
  start(): Promise<void>;
}

export interface RabbitCluster {
  nodes: ClusterNode[];
  /** Every node's URL, comma-separated, as the services' AMQP_URL takes them. */
  url: string;
  /** Stops every node and removes their data. */
  close(): Promise<void>;
}

/** The nodes' data, logs and settings are written as the broker's own user, which the server scripts switch to. */
const BROKER_USER = 'rabbitmq';

async function ctl(node: string, ...args: string[]): Promise<void> {
  try {
    await run('rabbitmqctl', ['-q', '-n', node, ...args], { timeout: 90_000 });
  } catch (error) {
    const { stderr = '' } = error as { stderr?: string };
    throw new Error(`rabbitmqctl -n ${node} ${args.join(' ')} failed: ${stderr.trim().split('\n')[0]}`, {
      cause: error,
    });
  }
}

/**
 * Starts `size` RabbitMQ nodes on this machine (Debian's rabbitmq-server, as the local broker is), on AMQP
 * ports from `basePort` and Erlang distribution ports 20,000 above, and joins them into one cluster: what
 * a deployment's three-node broker is, for the tests that stop nodes under load. Needs root (or the
 * broker's user) and the epmd of the local broker. Their data lives in a temporary directory, removed by
 * `close`.
 */
export async function startRabbitCluster({
  name,
  size = 3,
  basePort,
}: {
  name: string;
  size?: number;
  basePort: number;
}): Promise<RabbitCluster> {
  const root = mkdtempSync(join(tmpdir(), `${name}-`));
  const { uid, gid } = brokerIds();
  const nodes = Array.from({ length: size }, (_, i) => {
    const node = `${name}_${i + 1}@localhost`;
    const port = basePort + i;
    const dir = join(root, `node${i + 1}`);
    mkdirSync(dir);
    writeFileSync(join(dir, 'rabbitmq.conf'), `listeners.tcp.local = 127.0.0.1:${port}\nloopback_users = none\n`);
    writeFileSync(join(dir, 'enabled_plugins'), '[].\n');
    // Nothing from /etc/rabbitmq/rabbitmq-env.conf, which names the local broker's node.
    writeFileSync(join(dir, 'rabbitmq-env.conf'), '');
    const env = {
      ...process.env,
      RABBITMQ_CONF_ENV_FILE: join(dir, 'rabbitmq-env.conf'),
      RABBITMQ_NODENAME: node,
      RABBITMQ_CONFIG_FILE: join(dir, 'rabbitmq.conf'),
      RABBITMQ_MNESIA_BASE: join(dir, 'mnesia'),
      RABBITMQ_LOG_BASE: join(dir, 'log'),
      RABBITMQ_ENABLED_PLUGINS_FILE: join(dir, 'enabled_plugins'),
      RABBITMQ_DIST_PORT: String(port + 20_000),
      RABBITMQ_PID_FILE: join(dir, 'node.pid'),
      ERL_EPMD_ADDRESS: '127.0.0.1',
    };
    return { node, port, dir, env, pidFile: join(dir, 'node.pid') };
  });
  for (const path of [
    root,
    ...nodes.flatMap(({ dir }) => [
      dir,
      join(dir, 'rabbitmq.conf'),
      join(dir, 'enabled_plugins'),
      join(dir, 'rabbitmq-env.conf'),
    ]),
  ]) {
    chownSync(path, uid, gid);
  }

  const close = async () => {
    await Promise.all(nodes.map(({ node }) => ctl(node, 'stop').catch(() => undefined)));
    rmSync(root, { recursive: true, force: true });
  };
  try {
    await Promise.all(
      nodes.map(({ env }) => run('rabbitmq-server', ['-detached'], { env, cwd: root, timeout: 30_000 })),
    );
    // `wait` waits for the node to write its pid file and then for the broker to start: a node just
    // detached may not have registered with epmd yet, which `await_startup` takes for one not running.
    await Promise.all(nodes.map(({ node, pidFile }) => ctl(node, 'wait', '--timeout', '90', pidFile)));
    const [first, ...others] = nodes;
    for (const { node } of others) {
      await ctl(node, 'stop_app');
      await ctl(node, 'join_cluster', first!.node);
      await ctl(node, 'start_app');
    }
  } catch (error) {
    await close();
    throw error;
  }
  return {
    nodes: nodes.map(({ node, port }) => ({
      name: node,
      url: `amqp://guest:guest@127.0.0.1:${port}`,
      stop: () => ctl(node, 'stop_app'),
      start: async () => {
        await ctl(node, 'start_app');
        await ctl(node, 'await_startup');
      },
    })),
    url: nodes.map(({ port }) => `amqp://guest:guest@127.0.0.1:${port}`).join(','),
    close,
  };
}

/** The broker user's uid and gid, from the system's user database. */
function brokerIds(): { uid: number; gid: number } {
  const [, , uid, gid] = execFileSync('getent', ['passwd', BROKER_USER], { encoding: 'utf8' }).split(':');
  if (uid === undefined || gid === undefined) throw new Error(`no user ${BROKER_USER}: is rabbitmq-server installed?`);
  return { uid: Number(uid), gid: Number(gid) };
}
