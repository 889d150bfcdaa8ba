import { z } from 'zod';

/**
 * One page of what a service holds of a user, for their data export (docs/api.md §11.2): the service's
 * internal routes answer `{ items, next }` in the API's own shapes, by id after `after` (ids are
 * time-ordered), so that the users service gathers any amount page by page with flat memory.
 */
export const EXPORT_PAGE_LIMIT = 200;

export const exportPageQuery = z.object({
  after: z.uuid().optional(),
  limit: z.coerce.number().int().min(1).max(EXPORT_PAGE_LIMIT).default(EXPORT_PAGE_LIMIT),
});
export type ExportPageQuery = z.infer<typeof exportPageQuery>;

export const exportUserParams = z.object({ userId: z.uuid() });

/** The answer of an export page: its items and the `after` of the next page, null after the last. */
export const exportPage = <Item extends z.ZodType>(item: Item) =>
  z.object({ items: z.array(item), next: z.uuid().nullable() });

/** The `next` of a page of `items` asked with `limit`: the last id when the page was full. */
export const nextAfter = (items: ReadonlyArray<{ id: string }>, limit: number): string | null =>
  items.length === limit ? items.at(-1)!.id : null;
