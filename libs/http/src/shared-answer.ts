/**
 * `load`, its answer reused for `ttlMs` after it came, and shared by every caller while it is under way:
 * however many ask, `load` runs at most once per `ttlMs` and its own duration, and never twice at once
 * (with `ttlMs` 0, only the sharing). A load that fails is not kept: the next caller loads again.
 */
export function sharedAnswer<T>(load: () => Promise<T>, ttlMs: number): () => Promise<T> {
  let kept: { value: T; until: number } | undefined;
  let pending: Promise<T> | undefined;
  return () => {
    if (kept !== undefined && Date.now() < kept.until) return Promise.resolve(kept.value);
    pending ??= load()
      .then((value) => {
        kept = { value, until: Date.now() + ttlMs };
        return value;
      })
      .finally(() => {
        pending = undefined;
      });
    return pending;
  };
}
