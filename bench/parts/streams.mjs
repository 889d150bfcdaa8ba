import {
  CONDITIONAL_READS,
  idleStreamMemory,
  notModifiedCost,
  streamedMentionLatency,
  tokenSigner,
} from '../streams.mjs';
import { NAME, ratio } from './context.mjs';

/** What a 304 may cost against a 200 of the same read. */
const NOT_MODIFIED_CPU_RATIO = 0.5;

/** `streams`: the notification stream (bench/streams.mjs). */
export async function streamsPart(ctx) {
  const { system, pools, fixture, config, phase, rows, target, saved } = ctx;
  // The notification stream: a 304's cost, mentions delivered to open streams, memory of idle streams.
  // After the memory soak, whose growth target thousands of streams opening and closing would blur.
  const signToken = tokenSigner(NAME, fixture.viewer.token);
  saved.notModifiedCpu = await phase(
    `unread-count and the list, 200 and 304, ${config.etagRate} req/s, ${config.durationSeconds} s each`,
    async () => {
      const results = await notModifiedCost(system, fixture, {
        database: NAME,
        rate: config.etagRate,
        connections: config.etagConnections,
        seconds: config.durationSeconds,
      });
      for (const { read, status, cpu: _cpu, ...figures } of results) {
        rows.push({
          scenario: `GET ${CONDITIONAL_READS[read]} → ${status}`,
          via: figures.via,
          connections: config.etagConnections,
          ...figures,
        });
      }
      for (const read of Object.keys(CONDITIONAL_READS)) {
        for (const via of new Set(results.map((r) => r.via))) {
          const [ok, notModified] = [200, 304].map((status) =>
            results.find((r) => r.read === read && r.via === via && r.status === status),
          );
          target(
            `${read}: a 304 costs ≤ ${NOT_MODIFIED_CPU_RATIO} × the CPU of a 200 (${via}, ${config.etagRate} req/s)`,
            `304 ${notModified.cpuMsPerRequest} ms vs 200 ${ok.cpuMsPerRequest} ms per request (${ratio(notModified.cpuMsPerRequest, ok.cpuMsPerRequest)}×)`,
            notModified.cpuMsPerRequest <= NOT_MODIFIED_CPU_RATIO * ok.cpuMsPerRequest &&
              ok.errors === 0 &&
              notModified.errors === 0,
          );
        }
      }
      return Object.fromEntries(results.map(({ read, status, via, cpu }) => [`${read} ${status}, ${via}`, cpu]));
    },
  );

  await phase(
    `mention → event: notification, ${config.streams} open streams, ${config.mentionRate} comments/s for ${config.mentionSeconds} s`,
    async () => {
      const { cpu, ...streamed } = await streamedMentionLatency(system, pools, fixture, signToken, {
        database: NAME,
        streams: config.streams,
        mentioned: config.streamsMentioned,
        rate: config.mentionRate,
        seconds: config.mentionSeconds,
      });
      saved.cpuPerStreamedMention = cpu;
      rows.push({
        scenario:
          `POST comment → event: notification (${streamed.sent} at ${config.mentionRate}/s, ` +
          `${streamed.openStreams} streams, ${streamed.mentionedStreams} mentioned)`,
        via: 'gateway, end to end',
        connections: streamed.openStreams,
        ...streamed,
      });
      // A figure, not a target: a fixed rate asks more than some machines carry. The target is the write
      // path's, with as many streams open at 0.7 × the capacity measured in the same run (`writepath`).
    },
  );

  // The same at a rate far below what the machine can take, so no queue forms: what is left is the
  // chain's own latency (a fixed delay on some hop, as Nagle's algorithm once added, shows here first).
  await phase(
    `mention → event: notification on a quiet system, ${config.quietMentionRate} comments/s for ${config.quietMentionSeconds} s`,
    async () => {
      const { cpu: _cpu, ...quiet } = await streamedMentionLatency(system, pools, fixture, signToken, {
        database: NAME,
        streams: config.streamsMentioned,
        mentioned: config.streamsMentioned,
        rate: config.quietMentionRate,
        seconds: config.quietMentionSeconds,
      });
      rows.push({
        scenario: `POST comment → event: notification, quiet (${quiet.sent} at ${config.quietMentionRate}/s, ${quiet.openStreams} streams)`,
        via: 'gateway, end to end',
        connections: quiet.openStreams,
        ...quiet,
      });
    },
  );

  await idleStreams(ctx, signToken);
}

/** BENCH_IDLE_STREAMS idle streams held by the notifications instance directly, then through the gateway. */
async function idleStreams({ system, pools, config, phase, rows, target, saved }, signToken) {
  for (const via of ['notifications', 'gateway']) {
    const holder = via === 'gateway' ? 'gateway#0' : 'notifications#0';
    const idle = await phase(
      `${config.idleStreams.toLocaleString('en')} idle streams, ${via === 'gateway' ? 'through the gateway' : 'directly on notifications'}`,
      () => idleStreamMemory(system, pools, signToken, { count: config.idleStreams, via }),
    );
    saved.idleStreams.push(idle);
    const short =
      idle.streams < idle.wanted
        ? ` (${idle.wanted.toLocaleString('en')} asked; the gateway’s open-file limit ` +
          `of ${idle.fdLimit} fits ${idle.streams.toLocaleString('en')}, a socket each)`
        : '';
    for (const held of via === 'gateway' ? ['gateway#0', 'notifications#0'] : ['notifications#0']) {
      const [beforeMb, openMb] = [idle.before.afterGc[held], idle.open.afterGc[held]];
      rows.push({
        scenario: `memory of ${held} with ${idle.streams} idle streams${short}`,
        via: via === 'gateway' ? 'gateway' : 'direct (notifications)',
        connections: idle.streams,
        rssBeforeMb: beforeMb,
        rssOpenMb: openMb,
        kbPerStream: +(((openMb - beforeMb) * 1024) / idle.streams).toFixed(1),
        rssBeforeAsLeftMb: idle.before.asLeft[held],
        rssOpenAsLeftMb: idle.open.asLeft[held],
        ...idle.heap[held],
        asked: idle.wanted,
        openSeconds: idle.openSeconds,
        errors: idle.streamsEnded,
      });
      if (held !== holder) continue;
      // Short of the asked number (the gateway's file limit): what the rest would add, at the measured cost per stream.
      const extrapolatedMb = +(openMb + ((openMb - beforeMb) / idle.streams) * (idle.wanted - idle.streams)).toFixed(1);
      target(
        `${held}: RSS < 300 MB holding ${config.idleStreams.toLocaleString('en')} idle streams ` +
          `(${via === 'gateway' ? 'through it' : 'directly'}; after a full GC, as left beside)`,
        `${openMb} MB with ${idle.streams.toLocaleString('en')} (as left ${idle.open.asLeft[held]} MB; ${beforeMb} MB before)${short}` +
          (idle.streams < idle.wanted
            ? `; ${extrapolatedMb} MB at ${idle.wanted.toLocaleString('en')} by its cost per stream`
            : ''),
        extrapolatedMb < 300 && idle.streamsEnded === 0,
      );
    }
  }
}
