import type { Logger } from '@recipes/logging';

const READINESS_POLL_MS = 500;

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export type DependencyGate = ReturnType<typeof dependencyGate>;

/** Waits shared by every delivery of a consumer while the handlers' dependencies are away. */
export function dependencyGate(isReady: () => Promise<boolean>, log: Logger, isClosing: () => boolean) {
  let recovery: Promise<void> | undefined;
  const ready = () => isReady().catch(() => false);
  return {
    ready,
    /** Before a delivery is handled: resolves at once unless the dependencies are known to be away. */
    whileDown: (): Promise<void> => recovery ?? Promise.resolve(),
    /** After a failure caused by a dependency: resolves once it is back (or the consumer closes). */
    recovered(): Promise<void> {
      recovery ??= (async () => {
        log.warn('a dependency of the event handlers is unavailable: holding deliveries until it is back');
        while (!isClosing() && !(await ready())) await sleep(READINESS_POLL_MS);
        if (!isClosing()) log.info('the dependencies of the event handlers are back: resuming deliveries');
      })().finally(() => {
        recovery = undefined;
      });
      return recovery;
    },
  };
}
