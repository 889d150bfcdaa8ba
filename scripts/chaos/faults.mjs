// The faults a campaign injects, the schedule it draws them from, and how each is undone.
import { startProcess } from './processes.mjs';

export const FAULT_KINDS = [
  'postgres-stop-fast',
  'postgres-stop-immediate',
  'rabbitmq-stop-app',
  'rabbitmq-drop-connections',
  'instance-kill',
  'database-latency',
  'database-cut',
  'broker-latency',
  'broker-cut',
];

const tenths = (value) => Math.round(value * 10) / 10;

/**
 * An endless schedule drawn from `rng` alone: rounds in which every kind comes once, in a random order,
 * each with a random target instance, duration and pause after it. So a run of a few rounds meets every
 * kind, and a seed always gives the same faults in the same order.
 */
export function* faultSchedule(rng, instances, { faultSeconds = [1, 8], gapSeconds = [1, 5] } = {}) {
  for (;;) {
    for (const kind of rng.shuffle(FAULT_KINDS)) {
      yield {
        kind,
        target: rng.pick(instances),
        // A broker-side drop hits one instance's connection or every one of the system's.
        everyInstance: rng.chance(0.5),
        latencyMs: rng.int(100, 1_000),
        seconds: tenths(rng.between(...faultSeconds)),
        gapSeconds: tenths(rng.between(...gapSeconds)),
      };
    }
  }
}

/**
 * Injects one planned fault and returns what it did and how to undo it. `state` records what is down
 * (`postgresDown`, `rabbitmqDown`, `held`: the instances a fault stopped), so that whoever restores
 * everything at the end knows, and the process guard leaves a killed instance to its fault.
 */
export async function injectFault(plan, { system, proxies, servers, state }) {
  const { kind, target } = plan;
  const proxy = proxies.get(target);
  switch (kind) {
    case 'postgres-stop-fast':
    case 'postgres-stop-immediate': {
      const mode = kind.endsWith('fast') ? 'fast' : 'immediate';
      state.postgresDown = true;
      await servers.postgres.stop(mode);
      return {
        description: `PostgreSQL stopped (-m ${mode})`,
        restore: async () => {
          await servers.postgres.start();
          state.postgresDown = false;
        },
      };
    }
    case 'rabbitmq-stop-app':
      state.rabbitmqDown = true;
      await servers.rabbitmq.stopApp();
      return {
        description: 'RabbitMQ app stopped',
        restore: async () => {
          await servers.rabbitmq.startApp();
          state.rabbitmqDown = false;
        },
      };
    case 'rabbitmq-drop-connections': {
      // The broker sees each instance's connection coming from its proxy: the proxy knows those ports.
      const ports = new Set((plan.everyInstance ? [...proxies.values()] : [proxy]).flatMap((p) => p.broker.upstreamPorts()));
      const connections = (await servers.rabbitmq.connections()).filter((c) => ports.has(c.peerPort));
      await Promise.all(connections.map((c) => servers.rabbitmq.closeConnection(c.pid, 'chaos')));
      const whose = plan.everyInstance ? 'every instance' : target;
      return { description: `broker closed ${connections.length} connection(s) of ${whose}`, restore: async () => undefined };
    }
    case 'instance-kill': {
      const process = system.processes.find((p) => `${p.service}#${p.instance}` === target);
      state.held.add(target);
      await process.kill('SIGKILL');
      return {
        description: `${target} killed (SIGKILL)`,
        restore: async () => {
          await startProcess(process);
          state.held.delete(target);
        },
      };
    }
    case 'database-latency':
    case 'broker-latency': {
      const side = kind.startsWith('database') ? 'database' : 'broker';
      proxy[side].setLatency(plan.latencyMs);
      return { description: `${target} ↔ ${side}: +${plan.latencyMs} ms each way`, restore: async () => proxy[side].restore() };
    }
    case 'database-cut':
    case 'broker-cut': {
      const side = kind.startsWith('database') ? 'database' : 'broker';
      proxy[side].cut();
      return { description: `${target} ↔ ${side}: cut`, restore: async () => proxy[side].restore() };
    }
    default:
      throw new Error(`unknown fault kind ${kind}`);
  }
}

/**
 * Undoes whatever may still be in effect, whatever happened before: servers, proxies and, unless the
 * system is about to stop anyway (`processes: false`), stopped instances. Resolves with what failed.
 */
export async function restoreEverything({ system, proxies, servers, state }, { processes = true } = {}) {
  const errors = [];
  const attempt = (what, action) => action().catch((error) => errors.push(`${what}: ${error.message}`));
  for (const proxy of proxies.values()) {
    proxy.database.restore();
    proxy.broker.restore();
  }
  if (state.postgresDown || !(await servers.postgres.isUp())) {
    await attempt('start PostgreSQL', async () => {
      await servers.postgres.start();
      state.postgresDown = false;
    });
  }
  if (state.rabbitmqDown) {
    await attempt('start RabbitMQ', async () => {
      await servers.rabbitmq.startApp();
      state.rabbitmqDown = false;
    });
  }
  if (system && processes) {
    await Promise.all(system.processes.filter((p) => !p.running).map((p) => attempt(`start ${p.service}#${p.instance}`, () => startProcess(p))));
    state.held.clear();
  }
  return errors;
}
