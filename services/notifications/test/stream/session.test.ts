import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createLogger } from '@recipes/logging';
import { afterEach, describe, expect, it } from 'vitest';
import { type MissedChange, StreamSession, type StreamSource } from '../../src/stream/session.js';

/**
 * A recipient's sequence held in memory (the repository's own tests cover the SQL): `since` answers what
 * is after a place in it, as the stored notifications would.
 */
function sequenceOf(length: number): StreamSource & { reads: number[] } {
  const changes: MissedChange[] = Array.from({ length }, (_, i) => ({
    sequence: i + 1,
    notification: { id: `n${i + 1}` },
  }));
  const position = () => ({ lastSequence: length, lastId: length > 0 ? `n${length}` : undefined, unread: length });
  const reads: number[] = [];
  return {
    reads,
    position: async () => position(),
    since: async (_recipient, sequence, limit) => {
      reads.push(sequence);
      return { missed: changes.filter((change) => change.sequence > sequence).slice(0, limit), position: position() };
    },
  };
}

let close: (() => Promise<void>) | undefined;
afterEach(async () => close?.());

/** A real response on a real connection, and everything its client receives. */
async function openResponse(): Promise<{ response: ServerResponse; received: () => string }> {
  let body = '';
  const response = await new Promise<ServerResponse>((resolve, reject) => {
    const server = createServer((_request, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.flushHeaders();
      resolve(res);
    });
    close = () => new Promise((done) => (server.closeAllConnections(), server.close(() => done())));
    server.listen(0, '127.0.0.1', () => {
      fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`)
        .then(async (reply) => {
          for await (const chunk of reply.body!) body += Buffer.from(chunk).toString();
        })
        .catch(() => undefined);
    });
    server.once('error', reject);
  });
  return { response, received: () => body };
}

describe('a stream session prompted before it starts', () => {
  it('sends nothing of the history for the prompt: its first read finds what the prompt announced', async () => {
    const { response, received } = await openResponse();
    const source = sequenceOf(5);
    const session = new StreamSession('s1', 'u1', undefined, response, source, {
      keepAliveMs: 60_000,
      retryMs: 1_000,
      log: createLogger({ service: 'test', level: 'silent' }),
      onEnd: () => undefined,
    });
    // A notification stored and announced while the stream was being opened, before its first read.
    session.refresh();
    await session.start(undefined);
    // A later prompt reads from where the start left it, not from 0.
    session.refresh();
    session.refresh();
    await expect.poll(() => source.reads).toEqual([5]);
    session.end();
    await expect.poll(() => received()).toMatch(/event: unread_count/);
    expect(received()).not.toMatch(/event: notification/);
    expect(received().indexOf('retry:')).toBe(0);
  });
});
