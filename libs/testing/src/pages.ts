/**
 * Reads a listing over and over, `readers` reads at a time, for as long as `write` (another client
 * deleting and adding its items) runs, and gives every answer read: whatever was written meanwhile,
 * each answer must agree with itself. At least one read runs after the writes.
 */
export async function readWhileWriting<A>(
  read: () => Promise<A>,
  write: () => Promise<void>,
  readers = 2,
): Promise<A[]> {
  const answers: A[] = [];
  let writing = true;
  const writes = write().finally(() => (writing = false));
  const reading = async () => {
    do answers.push(await read());
    while (writing);
  };
  await Promise.all([writes, ...Array.from({ length: readers }, reading)]);
  return answers;
}

/** The `pagination` of docs/api.md's listings. */
interface Pagination {
  limit: number;
  total: number;
  totalPages: number;
}

/**
 * The answers, among `answers` (pages that hold the whole listing), whose items disagree with their own
 * pagination: as many items as `total`, and `totalPages` of `limit` for that total.
 */
export function pagesAtOdds<A extends { pagination: Pagination }>(answers: A[], items: (answer: A) => unknown[]): A[] {
  return answers.filter((answer) => {
    const { total, limit, totalPages } = answer.pagination;
    return items(answer).length !== total || totalPages !== Math.ceil(total / limit);
  });
}

/** One page of a walk by cursor: the ids it shows, in order, and the cursor of the next (null on the last). */
export interface CursorPage {
  ids: string[];
  nextCursor: string | null;
}

/**
 * Walks a listing by cursor from its first page (`read(null)`) to `nextCursor: null`, running `change`
 * (another client adding and deleting items) beside each page read, the `step`th change with the
 * `step`th read, at the same moment; gives every id seen, in the order seen.
 */
export async function walkWhileChanging(
  read: (cursor: string | null) => Promise<CursorPage>,
  change: (step: number) => Promise<void>,
  maxPages = 1_000,
): Promise<string[]> {
  const seen: string[] = [];
  let cursor: string | null = null;
  for (let step = 0; ; step += 1) {
    if (step >= maxPages) throw new Error(`the walk did not end within ${maxPages} pages`);
    const [page]: [CursorPage, void] = await Promise.all([read(cursor), change(step)]);
    seen.push(...page.ids);
    if (page.nextCursor === null) return seen;
    cursor = page.nextCursor;
  }
}

/**
 * What a walk by cursor broke of docs/api.md §10.1, as sentences (none when it held): every item that
 * existed for the whole walk (`throughout`) seen exactly once, no item seen twice, and the items seen in
 * the listing's order (`rank`: an item's place in it, lower first; every id seen must have one).
 */
export function walkFaults(seen: string[], throughout: Iterable<string>, rank: (id: string) => number): string[] {
  const faults: string[] = [];
  const counts = new Map<string, number>();
  for (const id of seen) counts.set(id, (counts.get(id) ?? 0) + 1);
  for (const [id, count] of counts) if (count > 1) faults.push(`${id} seen ${count} times`);
  for (const id of throughout) if (!counts.has(id)) faults.push(`${id} existed throughout and was never seen`);
  for (let i = 1; i < seen.length; i++) {
    if (!(rank(seen[i - 1]!) < rank(seen[i]!))) faults.push(`${seen[i]} seen after ${seen[i - 1]}, out of order`);
  }
  return faults;
}
