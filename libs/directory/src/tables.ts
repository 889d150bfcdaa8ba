/**
 * The read-model tables a service may join in its own SQL: this library's public surface in the database.
 * Each lives in the using service's schema (migrated by the sets in `index.ts`); the columns named here are
 * kept as they are, and a test holds them to the migrations. Other columns, and writes, are the library's.
 */
export const directoryTables = {
  /** What the service knows of users: authors to show, @names to resolve. */
  users: { table: 'users', columns: ['id', 'username', 'avatar_url', 'revision'] },
  /** Recipes and posts, deleted ones included (`deleted`), by their content service snapshot. */
  content: {
    table: 'content_items',
    columns: ['id', 'content_type', 'author_id', 'title', 'cover_image_url', 'deleted', 'revision', 'created_at'],
  },
  /** Collections, deleted ones included (`deleted`). */
  collections: { table: 'known_collections', columns: ['id', 'owner_id', 'name', 'deleted', 'revision', 'created_at'] },
  /** Who mutes or blocks whom (`user_id` of `target_id`), and when the pair's latest block ended. */
  relations: {
    table: 'user_relations',
    columns: ['user_id', 'target_id', 'muted', 'blocked', 'last_unblocked_at', 'revision'],
  },
} as const;
