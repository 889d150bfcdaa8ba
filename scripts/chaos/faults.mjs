// The faults a campaign injects and how each is undone (lanes.mjs draws and paces them).
import { hostOf } from './hosts.mjs';
import { nameOf, startProcess } from './processes.mjs';

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** Whether every instance of `process`'s service, itself included, runs and is ready (none held by a fault). */
function serviceReady(system, process, state) {
  return system.processes
    .filter((p) => p.service === process.service)
    .every((p) => p.running && !state.held.has(nameOf(p)));
}

/**
 * The instance to stop: `target` if its service is whole (none of its instances down or starting
 * again), else the first instance after it whose service is, as soon as there is one. Never one that is
 * still starting: its restart would race the fault's.
 */
async function stoppableInstance(system, target, state, signal) {
  const wanted = system.processes.find((p) => nameOf(p) === target);
  const from = system.processes.indexOf(wanted);
  const inTurn = [...system.processes.slice(from), ...system.processes.slice(0, from)].filter(
    (p) => p.service !== 'gateway',
  );
  for (;;) {
    const ready = inTurn.find((p) => serviceReady(system, p, state));
    if (ready || signal?.aborted) return ready ?? wanted;
    await sleep(200);
  }
}

/** Once every instance a kill is restarting is ready again, or has failed to be. */
const restartsDone = (state) => Promise.allSettled([...state.restarts]);

/** Resolves once one of `targets`' broker proxies has a connection open, or after `timeoutMs` anyway. */
async function untilConnected(targets, timeoutMs = 5_000) {
  const deadline = Date.now() + timeoutMs;
  while (targets.every((p) => p.broker.upstreamPorts().length === 0) && Date.now() < deadline) await sleep(200);
}

export const FAULT_KINDS = [
  'postgres-stop-fast',
  'postgres-stop-immediate',
  'rabbitmq-stop-app',
  'rabbitmq-drop-connections',
  'instance-kill',
  'instance-stop',
  'database-latency',
  'database-cut',
  'broker-latency',
  'broker-cut',
  'host-servers-cut',
  'host-partition',
  'push-unavailable',
  'push-throttled',
  'push-hang',
];

/**
 * Injects one planned fault and returns what it did and how to undo it. `state` records what is down
 * (`postgresDown`, `rabbitmqDown`, `held`: the instances a fault stopped, until they are ready again;
 * `restarts`: those being started again), so that whoever restores everything at the end knows, and the
 * process guard leaves a killed instance to its fault.
 */
export async function injectFault(plan, { system, proxies, links, servers, state, say, signal, push }) {
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
      const targets = plan.everyInstance ? [...proxies.values()] : [proxy];
      // A connection the last drop closed may still be coming back: a drop is meant to close one.
      await untilConnected(targets);
      const ports = targets.flatMap((p) => p.broker.upstreamPorts());
      const closed = ports.length === 0 ? 0 : await servers.rabbitmq.closeConnectionsFrom(ports, 'chaos');
      const whose = plan.everyInstance ? 'every instance' : target;
      return { description: `broker closed ${closed} connection(s) of ${whose}`, restore: async () => undefined };
    }
    case 'instance-kill':
    case 'instance-stop': {
      // At most one instance of a service down at a time, and none stopped while it starts again: stop
      // one of a service that is whole, or wait for one to be.
      const process = await stoppableInstance(system, plan.target, state, signal);
      const stopped = nameOf(process);
      state.held.add(stopped);
      // A kill, as a crash; or SIGTERM, as a rolling deploy stops an instance (it finishes what it took).
      const how = kind === 'instance-kill' ? 'SIGKILL' : 'SIGTERM';
      await process.kill(how);
      return {
        target: stopped,
        description: `${stopped} ${kind === 'instance-kill' ? 'killed' : 'stopped'} (${how})`,
        // Started again in the background, as an orchestrator would while other things go wrong: the lane
        // goes on at once, however long the instance takes to be ready (its host may be cut off from the
        // database meanwhile). Held until then, so that the process guard leaves it alone.
        restore: async () => {
          const restarting = Date.now();
          const restart = startProcess(process, { log: say })
            .then(
              () => say(`${stopped} ready again after ${((Date.now() - restarting) / 1_000).toFixed(1)} s`),
              (error) => say(`${stopped} did not start again: ${error.message}`),
            )
            .finally(() => {
              state.held.delete(stopped);
              state.restarts.delete(restart);
            });
          state.restarts.add(restart);
          return { ready: restart };
        },
      };
    }
    case 'database-latency':
    case 'broker-latency': {
      const side = kind.startsWith('database') ? 'database' : 'broker';
      proxy[side].setLatency(plan.latencyMs);
      return {
        description: `${target} ↔ ${side}: +${plan.latencyMs} ms each way`,
        restore: async () => proxy[side].restore(),
      };
    }
    case 'database-cut':
    case 'broker-cut': {
      const side = kind.startsWith('database') ? 'database' : 'broker';
      proxy[side].cut();
      return { description: `${target} ↔ ${side}: cut`, restore: async () => proxy[side].restore() };
    }
    case 'host-servers-cut': {
      // Every instance on the target's host loses PostgreSQL and RabbitMQ at once, as a host cut off would.
      const host = hostOf(Number(target.split('#')[1]));
      const onHost = [...proxies.entries()]
        .filter(([name]) => hostOf(Number(name.split('#')[1])) === host)
        .map(([, p]) => p);
      for (const p of onHost) {
        p.database.cut();
        p.broker.cut();
      }
      return {
        description: `host ${host} ↔ servers: cut (${onHost.length} instances)`,
        restore: async () => {
          for (const p of onHost) {
            p.database.restore();
            p.broker.restore();
          }
        },
      };
    }
    case 'host-partition':
      for (const link of links.all()) link.cut();
      return { description: 'host a ↔ host b: cut', restore: async () => restoreLinks({ links }) };
    case 'push-unavailable':
    case 'push-throttled':
    case 'push-hang': {
      // A hang holds each push 15× the drawn latency (1.5–15 s): either side of the sender's 10 s time-out.
      const answer = {
        'push-unavailable': { status: 503 },
        'push-throttled': { status: 429, retryAfterSeconds: 1 },
        'push-hang': { holdMs: plan.latencyMs * 15 },
      }[kind];
      push.answerEvery(answer);
      const what =
        'holdMs' in answer ? `holds each push ${(answer.holdMs / 1_000).toFixed(1)} s` : `answers ${answer.status}`;
      return { description: `push service ${what}`, restore: async () => push.answerEvery(undefined) };
    }
    default:
      throw new Error(`unknown fault kind ${kind}`);
  }
}

/** The links between the hosts back to plain forwarding. */
export async function restoreLinks({ links }) {
  for (const link of links?.all() ?? []) link.restore();
  return [];
}

/** The hosts whole again: every instance's proxies and the links between the hosts. */
export async function restoreHosts(context) {
  return [...(await restoreProxies(context)), ...(await restoreLinks(context))];
}

/** The proxies back to plain forwarding. */
export async function restoreProxies({ proxies }) {
  for (const proxy of proxies.values()) {
    proxy.database.restore();
    proxy.broker.restore();
  }
  return [];
}

const attempt = (errors, what, action) => action().catch((error) => errors.push(`${what}: ${error.message}`));

/** PostgreSQL started again if a fault stopped it (or it is down anyway). */
export async function restorePostgres({ servers, state }) {
  const errors = [];
  if (state.postgresDown || !(await servers.postgres.isUp())) {
    await attempt(errors, 'start PostgreSQL', async () => {
      await servers.postgres.start();
      state.postgresDown = false;
    });
  }
  return errors;
}

/** RabbitMQ's app started again if a fault stopped it. */
export async function restoreRabbitmq({ servers, state }) {
  const errors = [];
  if (state.rabbitmqDown) {
    await attempt(errors, 'start RabbitMQ', async () => {
      await servers.rabbitmq.startApp();
      state.rabbitmqDown = false;
    });
  }
  return errors;
}

/**
 * The instances a fault holds started again, then released: if one does not start, the process guard
 * takes it over (and counts it). Only those: the guard restarts any other, and two starts of one
 * process at once would race for its port.
 */
export async function restoreHeld({ system, state, say }) {
  await restartsDone(state);
  const errors = [];
  const held = system ? system.processes.filter((p) => state.held.has(nameOf(p))) : [];
  await Promise.all(
    held.map((p) =>
      attempt(errors, `start ${nameOf(p)}`, () => startProcess(p, { log: say })).finally(() =>
        state.held.delete(nameOf(p)),
      ),
    ),
  );
  return errors;
}

/**
 * Undoes whatever may still be in effect, whatever happened before: servers, proxies and, unless the
 * system is about to stop anyway (`processes: false`), stopped instances. Only once no lane runs any
 * more (a lane that goes wrong undoes its own kinds alone). Resolves with what failed.
 */
export async function restoreEverything(context, { processes = true } = {}) {
  const { system, state, say, push } = context;
  push?.answerEvery(undefined);
  const errors = [
    ...(await restoreHosts(context)),
    ...(await restorePostgres(context)),
    ...(await restoreRabbitmq(context)),
  ];
  await restartsDone(state);
  if (system && processes) {
    await Promise.all(
      system.processes
        .filter((p) => !p.running)
        .map((p) => attempt(errors, `start ${nameOf(p)}`, () => startProcess(p, { log: say }))),
    );
  }
  state.held.clear();
  return errors;
}
