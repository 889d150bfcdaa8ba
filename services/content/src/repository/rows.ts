import type { UserSnapshot } from '@recipes/contracts';

/** The author shown with a recipe or post, as the user directory knows them. */
export type AuthorRow = Pick<UserSnapshot, 'id' | 'username' | 'avatarUrl'>;

/** A row as pg returns it: timestamps are Dates, which the API and the events write as ISO strings. */
export type Stored<T extends { createdAt: string }> = Omit<T, 'createdAt'> & { createdAt: Date };

export function withIsoTimestamp<T extends { createdAt: string }>(row: Stored<T>): T {
  return { ...row, createdAt: row.createdAt.toISOString() } as T;
}
