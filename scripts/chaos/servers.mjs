// Stops and starts the PostgreSQL and RabbitMQ the system uses, and asks the broker about its
// connections and queues: with the local servers' own tools, or inside containers a test run started
// (`containers`: { postgres?, rabbitmq? } container ids, as the test infrastructure hands them out).
import { execFile, execFileSync } from 'node:child_process';
import { promisify } from 'node:util';

const exec = promisify(execFile);

async function run([file, ...args], { timeoutMs = 90_000 } = {}) {
  try {
    const { stdout } = await exec(file, args, { timeout: timeoutMs, maxBuffer: 16 * 1024 * 1024 });
    return stdout;
  } catch (error) {
    throw new Error(
      `\`${[file, ...args].join(' ')}\` failed: ${error.message.split('\n')[0]} ${(error.stderr ?? '').trim()}`,
      { cause: error },
    );
  }
}

const succeeds = (command, options) =>
  run(command, options).then(
    () => true,
    () => false,
  );

/**
 * The local cluster on `port`, from `pg_lsclusters`: its version, name, owner, data directory and log.
 * The campaign calls its pg_ctl directly: pg_ctlcluster's own polling makes a start take ~2 s more.
 */
function localCluster(port = 5432) {
  const rows = execFileSync('pg_lsclusters', ['-h'], { encoding: 'utf8' })
    .split('\n')
    .map((line) => line.trim().split(/\s+/));
  const row = rows.find((r) => Number(r[2]) === port);
  if (!row) throw new Error(`no PostgreSQL cluster on port ${port} in pg_lsclusters`);
  const [version, name, , , owner, dataDir, logFile] = row;
  const pgCtl = [`/usr/lib/postgresql/${version}/bin/pg_ctl`, '-D', dataDir, '-s', '-w'];
  // Only root may act as the cluster's owner; anyone else must be that owner already.
  const asOwner = (args) =>
    process.getuid?.() === 0 ? ['runuser', '-u', owner, '--', ...pgCtl, ...args] : [...pgCtl, ...args];
  return {
    stop: (mode) => asOwner(['stop', '-m', mode]),
    start: () =>
      asOwner([
        'start',
        ...(logFile ? ['-l', logFile] : []),
        '-o',
        `-c config_file=/etc/postgresql/${version}/${name}/postgresql.conf`,
      ]),
  };
}

function postgresControl(container) {
  const ready = container
    ? ['docker', 'exec', container, 'pg_isready', '-q']
    : ['pg_isready', '-q', '-h', '127.0.0.1', '-p', '5432'];
  let cluster;
  const local = () => (cluster ??= localCluster());
  return {
    isUp: () => succeeds(ready, { timeoutMs: 10_000 }),
    /** `fast` rolls back and disconnects cleanly; `immediate` quits without a checkpoint, like a crash. */
    async stop(mode) {
      if (!container) return void (await run(local().stop(mode)));
      // The image's stop signal (SIGINT) is a fast shutdown; SIGQUIT is an immediate one.
      if (mode === 'fast') await run(['docker', 'stop', container]);
      else
        await run(['docker', 'kill', '--signal', 'SIGQUIT', container]).then(() => run(['docker', 'wait', container]));
    },
    async start() {
      await run(container ? ['docker', 'start', container] : local().start());
      await run([...ready, '-t', '60']);
    },
  };
}

function rabbitmqControl(container) {
  const ctl = (...args) => run([...(container ? ['docker', 'exec', container] : []), 'rabbitmqctl', '-q', ...args]);
  const json = async (...args) => JSON.parse((await ctl(...args, '--formatter', 'json')) || '[]');
  return {
    /** The Erlang node stays up, so start_app brings the broker back within seconds. */
    stopApp: () => ctl('stop_app'),
    /** start_app returns once the app has booted: no await_startup (another ~0.5 s of CLI) needed. */
    startApp: () => ctl('start_app'),
    /**
     * Closes every AMQP connection whose client port is in `peerPorts`, as the broker does when an
     * operator closes it, and resolves with how many it closed. One command: each rabbitmqctl call
     * starts an Erlang VM (~0.6 s of CPU), one per connection would starve the system.
     */
    async closeConnectionsFrom(peerPorts, reason) {
      const script = `Ports = [${peerPorts.map(Number).join(', ')}],
        Pids = [P || [{pid, P}, {peer_port, Port}] <- rabbit_networking:connection_info_all([pid, peer_port]), lists:member(Port, Ports)],
        [catch rabbit_networking:close_connection(P, ${JSON.stringify(reason)}) || P <- Pids],
        length(Pids).`;
      return Number((await ctl('eval', script)).trim());
    },
    exchanges: async () => (await json('list_exchanges', 'name')).map((row) => row.name),
    /** Every queue's ready and unacknowledged messages. */
    async queues() {
      const rows = await json('list_queues', 'name', 'messages_ready', 'messages_unacknowledged');
      return rows.map((row) => ({ name: row.name, ready: row.messages_ready, unacked: row.messages_unacknowledged }));
    },
  };
}

export function serverControl({ containers = {} } = {}) {
  return { postgres: postgresControl(containers.postgres), rabbitmq: rabbitmqControl(containers.rabbitmq) };
}
