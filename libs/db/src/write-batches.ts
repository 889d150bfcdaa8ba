/** One item waiting for its batch, and the caller waiting for it. */
interface Waiting<T> {
  item: T;
  written: () => void;
  failed: (error: unknown) => void;
}

/**
 * Writes items a batch at a time, each batch in one call of `write` (one statement, one commit): an item that comes
 * while a batch is being written waits for the next, which takes every item that waited, up to `maxBatch`. An item
 * that finds nothing being written is written at once, so batches form only under load, and nothing waits on a timer.
 * Each caller's promise settles once its own item is written (committed), or has failed.
 *
 * `write` must change nothing when it fails, or be safe to repeat: a batch that fails is written again one item at a
 * time, so that only the item at fault fails (and is retried by its own caller), and the others are written.
 */
export function writeInBatches<T>(
  write: (items: readonly T[]) => Promise<void>,
  maxBatch = 100,
): (item: T) => Promise<void> {
  const queue: Waiting<T>[] = [];
  let writing = false;

  async function writeBatch(batch: Waiting<T>[]): Promise<void> {
    try {
      await write(batch.map(({ item }) => item));
      for (const { written } of batch) written();
    } catch (error) {
      if (batch.length === 1) return batch[0]!.failed(error);
      for (const one of batch) await writeBatch([one]);
    }
  }

  async function drain(): Promise<void> {
    writing = true;
    while (queue.length > 0) await writeBatch(queue.splice(0, maxBatch));
    writing = false;
  }

  return (item) =>
    new Promise<void>((written, failed) => {
      queue.push({ item, written, failed });
      if (!writing) void drain();
    });
}
