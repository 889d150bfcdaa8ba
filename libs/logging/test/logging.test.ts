import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createLogger, eventLogger } from '../src/index.js';

function capture() {
  const lines: Record<string, unknown>[] = [];
  const destination = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString().split('\n').filter(Boolean)) lines.push(JSON.parse(line));
      done();
    },
  });
  return { lines, destination };
}

describe('logging', () => {
  it('writes JSON lines with service, level word and ISO time', () => {
    const { lines, destination } = capture();
    createLogger({ service: 'users', destination }).info({ userId: 'u1' }, 'registered');
    expect(lines[0]).toMatchObject({ service: 'users', level: 'info', userId: 'u1', msg: 'registered' });
    expect(lines[0]?.time).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  });

  it('puts the event id and correlation id on every line of a handler', () => {
    const { lines, destination } = capture();
    const log = eventLogger(createLogger({ service: 'content', destination }), {
      id: 'e1',
      type: 'user.created',
      correlationId: 'req-42',
    });
    log.info('first');
    log.child({ step: 2 }).warn('second');
    expect(lines).toHaveLength(2);
    for (const line of lines) expect(line).toMatchObject({ eventId: 'e1', eventType: 'user.created', correlationId: 'req-42' });
  });

  it('never writes passwords, tokens or authorization headers', () => {
    const { lines, destination } = capture();
    createLogger({ service: 'users', destination }).info({
      body: { password: 'hunter22' },
      token: 'abc',
      req: { headers: { authorization: 'Bearer abc' } },
    });
    const text = JSON.stringify(lines[0]);
    expect(text).not.toContain('hunter22');
    expect(text).not.toContain('Bearer abc');
    expect(text).not.toContain('"abc"');
  });
});
