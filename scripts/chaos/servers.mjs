// Stops and starts the PostgreSQL and RabbitMQ the system uses, and asks the broker about its
// connections and queues: with the local servers' own tools, or inside containers a test run started
// (`containers`: { postgres?, rabbitmq? } container ids, as the test infrastructure hands them out).
import { execFile } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { promisify } from 'node:util';

const exec = promisify(execFile);

async function run([file, ...args], { timeoutMs = 90_000 } = {}) {
  try {
    const { stdout } = await exec(file, args, { timeout: timeoutMs, maxBuffer: 16 * 1024 * 1024 });
    return stdout;
  } catch (error) {
    throw new Error(`\`${[file, ...args].join(' ')}\` failed: ${error.message.split('\n')[0]} ${(error.stderr ?? '').trim()}`, { cause: error });
  }
}

const succeeds = (command, options) => run(command, options).then(() => true, () => false);

function postgresControl(container) {
  const ready = container ? ['docker', 'exec', container, 'pg_isready', '-q'] : ['pg_isready', '-q', '-h', '127.0.0.1', '-p', '5432'];
  const cluster = () => {
    const version = readdirSync('/etc/postgresql')[0];
    if (!version) throw new Error('no PostgreSQL cluster under /etc/postgresql');
    return ['pg_ctlcluster', '--skip-systemctl-redirect', version, 'main'];
  };
  return {
    isUp: () => succeeds(ready, { timeoutMs: 10_000 }),
    /** `fast` rolls back and disconnects cleanly; `immediate` quits without a checkpoint, like a crash. */
    async stop(mode) {
      if (!container) return void (await run([...cluster(), 'stop', '-m', mode]));
      // The image's stop signal (SIGINT) is a fast shutdown; SIGQUIT is an immediate one.
      if (mode === 'fast') await run(['docker', 'stop', container]);
      else await run(['docker', 'kill', '--signal', 'SIGQUIT', container]).then(() => run(['docker', 'wait', container]));
    },
    async start() {
      await run(container ? ['docker', 'start', container] : [...cluster(), 'start']);
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
    async startApp() {
      await ctl('start_app');
      await ctl('await_startup');
    },
    /** Every AMQP connection: `pid` (as close_connection takes it) and the client's `peerPort`. */
    async connections() {
      // Tab-separated under a header line; the JSON formatter spells pids in a way close_connection refuses.
      const rows = (await ctl('list_connections', 'pid', 'peer_port')).split('\n').map((line) => line.trim().split(/\s+/));
      return rows.filter(([pid]) => pid?.startsWith('<')).map(([pid, peerPort]) => ({ pid, peerPort: Number(peerPort) }));
    },
    closeConnection: (pid, reason) => ctl('close_connection', pid, reason),
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
