import type { Bindings, ChildLoggerOptions, Logger } from 'pino';

const LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace'] as const;

const pending = Symbol('pending child');
const settled = Symbol('settled child');

/** A deferred child: what its child is to be made of until it is made, then the child. */
interface DeferredChild extends Logger {
  [pending]: [parent: Logger, bindings: Bindings, options: ChildLoggerOptions];
  [settled]?: Logger;
}

/** The child a deferred one stands for, made on the first call that needs it. */
function settle(deferred: DeferredChild): Logger {
  const [parent, bindings, options] = deferred[pending];
  return (deferred[settled] ??= parent.child(bindings, options));
}

const kinds = new WeakMap<Logger, object>();

/** The prototype of `parent`'s deferred children: `parent` itself, but for writing lines and binding. */
function kindOf(parent: Logger): object {
  const known = kinds.get(parent);
  if (known) return known;
  const writers = LEVELS.map((level) => [
    level,
    {
      value(this: DeferredChild, ...args: Parameters<Logger['info']>) {
        if (this.isLevelEnabled(level)) settle(this)[level](...args);
      },
    },
  ]);
  const kind = Object.create(parent, {
    ...Object.fromEntries(writers),
    child: {
      value(this: DeferredChild, ...args: Parameters<Logger['child']>) {
        return settle(this).child(...args);
      },
    },
    bindings: {
      value(this: DeferredChild) {
        return settle(this).bindings();
      },
    },
    setBindings: {
      value(this: DeferredChild, bindings: Bindings) {
        settle(this).setBindings(bindings);
      },
    },
  }) as object;
  kinds.set(parent, kind);
  return kind;
}

/**
 * `parent.child(bindings, options)`, made only once it writes a line (at an enabled level) or is asked for its
 * bindings or a child: what Fastify gives each request (its `childLoggerFactory`). Pino serializes a child's bindings
 * as it makes it, each through the redaction, at a cost larger than some whole requests; most requests write no line
 * of their own. Until then it reads as `parent`: its level, its levels, its stream.
 */
export function deferredChild(parent: Logger, bindings: Bindings, options: ChildLoggerOptions = {}): Logger {
  const deferred = Object.create(kindOf(parent)) as DeferredChild;
  deferred[pending] = [parent, bindings, options];
  return deferred;
}
