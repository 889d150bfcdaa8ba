import { execFile } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { promisify } from 'node:util';
import { inject } from 'vitest';
import { LOCAL_AMQP_URL, LOCAL_DATABASE_URL } from './infrastructure.js';

const run = promisify(execFile);

export type SharedServerName = 'postgres' | 'rabbitmq';

/** Takes a shared server away and gives it back, for the fault tests. Every other test file loses it too. */
export interface SharedServer {
  readonly name: SharedServerName;
  /** Stops the server; resolves once it no longer serves. */
  stop(): Promise<void>;
  /** Starts it again; resolves once it serves. */
  start(): Promise<void>;
}

interface Commands {
  stop: string[][];
  start: string[][];
}

/** The local servers' own tools, as .ci/run uses them. */
function localCommands(name: SharedServerName): Commands {
  if (name === 'rabbitmq') {
    // stop_app leaves the Erlang node up, so start_app brings the broker back within seconds.
    return {
      stop: [['rabbitmqctl', '-q', 'stop_app']],
      start: [
        ['rabbitmqctl', '-q', 'start_app'],
        ['rabbitmqctl', '-q', 'await_startup'],
      ],
    };
  }
  const version = readdirSync('/etc/postgresql')[0];
  if (!version) throw new Error('no PostgreSQL cluster under /etc/postgresql');
  const cluster = ['pg_ctlcluster', '--skip-systemctl-redirect', version, 'main'];
  return {
    stop: [[...cluster, 'stop']],
    start: [
      [...cluster, 'start'],
      ['pg_isready', '-q', '-h', '127.0.0.1', '-p', '5432', '-t', '30'],
    ],
  };
}

/** A container this run started, on fixed host ports (see infrastructure.ts), so its address survives a restart. */
function containerCommands(name: SharedServerName, id: string): Commands {
  const ready = name === 'rabbitmq' ? ['rabbitmqctl', '-q', 'await_startup'] : ['pg_isready', '-q', '-t', '30'];
  return {
    stop: [['docker', 'stop', id]],
    start: [
      ['docker', 'start', id],
      ['docker', 'exec', id, ...ready],
    ],
  };
}

function commandsFor(name: SharedServerName): Commands {
  const id = inject('containers')[name];
  if (id) return containerCommands(name, id);
  const [url, local] =
    name === 'postgres' ? [inject('databaseUrl'), LOCAL_DATABASE_URL] : [inject('amqpUrl'), LOCAL_AMQP_URL];
  if (url === local) return localCommands(name);
  throw new Error(
    `cannot stop or start ${name} at ${new URL(url).host}: it is neither the local server nor a container this run started`,
  );
}

async function runAll(name: SharedServerName, commands: string[][]): Promise<void> {
  for (const [file, ...args] of commands) {
    try {
      await run(file!, args, { timeout: 60_000 });
    } catch (error) {
      const { stderr = '' } = error as { stderr?: string };
      throw new Error(
        `${name}: \`${[file, ...args].join(' ')}\` failed: ${(error as Error).message.split('\n')[0]} ${stderr.trim()}`,
        { cause: error },
      );
    }
  }
}

/**
 * The control of a shared server this test run uses: the local server's tools, or `docker stop/start`
 * for a container the global setup started. A server it cannot control fails the test, never skips it.
 */
export function sharedServer(name: SharedServerName): SharedServer {
  const commands = commandsFor(name);
  return {
    name,
    stop: () => runAll(name, commands.stop),
    start: () => runAll(name, commands.start),
  };
}
