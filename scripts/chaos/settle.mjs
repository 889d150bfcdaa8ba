// Waiting for the system to finish what the campaign started: every process ready, every outbox
// drained and every queue of the system empty (nothing ready, nothing being handled), for a while.
import { nameOf } from './processes.mjs';

export const SCHEMAS = ['users', 'content', 'comments', 'collections', 'notifications'];

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const ready = (url) =>
  fetch(`${url}/health/ready`, { signal: AbortSignal.timeout(2_000) }).then(
    (r) => r.ok,
    () => false,
  );

/** The system's queues by name: its exchange's name, a dot, then anything (the service, `.dlq`, ...). */
export const isSystemQueue = (exchange) => (name) => name.startsWith(`${exchange}.`);

export async function outboxBacklog(db) {
  const counts = await Promise.all(
    SCHEMAS.map(async (schema) => (await db.query(`SELECT count(*)::int AS n FROM ${schema}.outbox`)).rows[0].n),
  );
  return Object.fromEntries(SCHEMAS.map((schema, i) => [schema, counts[i]]));
}

/** What still keeps the system busy, in words; empty once it is quiet. */
async function busy({ system, db, servers, exchange }) {
  const reasons = [];
  // A backend's readiness says it reaches the database and the broker; the gateway need only run.
  const unready = await Promise.all(
    system.processes.map(async (p) =>
      p.running && (p.service === 'gateway' || (await ready(p.url))) ? undefined : nameOf(p),
    ),
  );
  if (unready.some(Boolean)) reasons.push(`not ready: ${unready.filter(Boolean).join(', ')}`);
  try {
    const backlog = Object.entries(await outboxBacklog(db)).filter(([, n]) => n > 0);
    if (backlog.length > 0) reasons.push(`outbox: ${backlog.map(([schema, n]) => `${schema} ${n}`).join(', ')}`);
  } catch (error) {
    reasons.push(`database: ${error.message}`);
  }
  try {
    const queues = (await servers.rabbitmq.queues()).filter(
      (q) => isSystemQueue(exchange)(q.name) && !q.name.endsWith('.dlq'),
    );
    const pending = queues.filter((q) => q.ready + q.unacked > 0);
    if (pending.length > 0)
      reasons.push(
        `queues: ${pending.map((q) => `${q.name.slice(exchange.length + 1)} ${q.ready}+${q.unacked}`).join(', ')}`,
      );
  } catch (error) {
    reasons.push(`broker: ${error.message}`);
  }
  return reasons;
}

/**
 * Polls until nothing is pending for `quietMs` in a row (a message waiting out a retry delay is
 * unacknowledged, so it counts as pending), or `timeoutMs` passes. Resolves with how long it took,
 * or with what was still pending.
 */
export async function settle({ system, db, servers, exchange, timeoutMs, quietMs = 6_000, signal, log }) {
  const started = Date.now();
  let quietSince;
  let reasons = [];
  let lastLogged = 0;
  while (Date.now() - started < timeoutMs && !signal?.aborted) {
    reasons = await busy({ system, db, servers, exchange });
    if (reasons.length === 0) {
      quietSince ??= Date.now();
      if (Date.now() - quietSince >= quietMs) return { settled: true, ms: Date.now() - started };
    } else {
      quietSince = undefined;
      if (Date.now() - lastLogged > 10_000) {
        log(`settling: ${reasons.join('; ')}`);
        lastLogged = Date.now();
      }
    }
    await sleep(1_000);
  }
  return { settled: false, ms: Date.now() - started, pending: reasons };
}
