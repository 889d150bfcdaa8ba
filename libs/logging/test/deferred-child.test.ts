import fc from 'fast-check';
import type { Logger } from 'pino';
import { describe, expect, it } from 'vitest';
import { createLogger, deferredChild } from '../src/index.js';
import { capture } from './support.js';

const LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace'] as const;

/** A logger at `level`, and the lines it writes. */
function capturing(level: (typeof LEVELS)[number]) {
  const { lines, destination } = capture();
  return { lines, logger: createLogger({ service: 'probe', level, destination }) };
}

/** The lines without their time: two loggers write them at different instants. */
const untimed = (lines: Record<string, unknown>[]) => lines.map(({ time: _, ...rest }) => rest);

/** A call a request's code may make on its logger. */
const call = fc.oneof(
  fc.record({
    kind: fc.constant('line' as const),
    level: fc.constantFrom(...LEVELS),
    fields: fc.dictionary(fc.constantFrom('userId', 'count', 'token', 'password', 'step'), fc.string(), {
      maxKeys: 3,
      noNullPrototype: true,
    }),
    message: fc.string(),
  }),
  fc.record({
    kind: fc.constant('child' as const),
    level: fc.constantFrom(...LEVELS),
    bindings: fc.dictionary(fc.constantFrom('stream', 'eventId', 'token'), fc.string(), {
      minKeys: 1,
      maxKeys: 2,
      noNullPrototype: true,
    }),
    message: fc.string(),
  }),
);

function play(logger: Logger, calls: fc.infer<typeof call>[]) {
  for (const step of calls) {
    if (step.kind === 'line') logger[step.level](step.fields, step.message);
    else logger.child(step.bindings)[step.level](step.message);
  }
}

describe('deferredChild', () => {
  it('writes the very lines pino’s own child would, at every level, for any calls', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...LEVELS),
        fc.stringMatching(/^[A-Za-z0-9._:-]{1,40}$/),
        fc.array(call, { maxLength: 8 }),
        (level, requestId, calls) => {
          const deferred = capturing(level);
          const eager = capturing(level);
          play(deferredChild(deferred.logger, { requestId }), calls);
          play(eager.logger.child({ requestId }), calls);
          expect(untimed(deferred.lines)).toEqual(untimed(eager.lines));
        },
      ),
    );
  });

  it('reads as its parent until it writes, and then keeps its bindings', () => {
    const { logger, lines } = capturing('warn');
    const deferred = deferredChild(logger, { requestId: 'r-1' });
    expect(deferred.level).toBe('warn');
    expect(deferred.isLevelEnabled('info')).toBe(false);
    expect(deferred.isLevelEnabled('error')).toBe(true);
    deferred.info('below the level');
    expect(lines).toEqual([]);
    expect(deferred.bindings()).toEqual({ service: 'probe', requestId: 'r-1' });
    deferred.child({ step: 2 }).error('failed');
    deferred.warn('slow');
    expect(lines).toEqual([
      expect.objectContaining({ requestId: 'r-1', step: 2, level: 'error', msg: 'failed' }),
      expect.objectContaining({ requestId: 'r-1', level: 'warn', msg: 'slow' }),
    ]);
  });

  it('makes the child once, however many lines it writes', () => {
    const { logger, lines } = capturing('info');
    const deferred = deferredChild(logger, { requestId: 'r-2' });
    deferred.info('one');
    deferred.setBindings({ stage: 'second' });
    deferred.info('two');
    expect(lines.map((line) => [line.msg, line.stage])).toEqual([
      ['one', undefined],
      ['two', 'second'],
    ]);
  });
});
