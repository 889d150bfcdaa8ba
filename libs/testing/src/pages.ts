/**
 * Reads a listing over and over, `readers` reads at a time, for as long as `write` (another client
 * deleting and adding its items) runs, and gives every answer read: whatever was written meanwhile,
 * each answer must agree with itself. At least one read runs after the writes.
 */
export async function readWhileWriting<A>(read: () => Promise<A>, write: () => Promise<void>, readers = 2): Promise<A[]> {
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
