import type { Author } from '@recipes/contracts';
import type { UserDirectory } from '@recipes/directory';
import type { CollectionRecord } from './repository/collections.js';
import type { SavedItemRow } from './repository/saved-items.js';
import type { Collection, SavedItem } from './schemas.js';

function authorFrom(authors: Map<string, Author>, id: string): Author {
  const author = authors.get(id);
  // The users service holds every author of content and owner of a collection; not finding one is a bug.
  if (!author) throw new Error(`user ${id} is unknown to the users service`);
  return { id: author.id, username: author.username, avatarUrl: author.avatarUrl };
}

/** Records as the API shows them, with their authors as the user directory knows them now. */
export function views(users: UserDirectory) {
  return {
    async savedItems(rows: SavedItemRow[]): Promise<SavedItem[]> {
      const authors = new Map<string, Author>();
      for (const row of rows) {
        if (row.authorUsername !== null)
          authors.set(row.authorId, { id: row.authorId, username: row.authorUsername, avatarUrl: row.authorAvatarUrl });
      }
      // Authors the read model has not heard of yet: the directory asks the users service, and remembers.
      const unknown = rows.filter((row) => !authors.has(row.authorId)).map((row) => row.authorId);
      if (unknown.length > 0) for (const [id, user] of await users.findByIds(unknown)) authors.set(id, user);
      return rows.map((row) => ({
        id: row.id,
        userId: row.userId,
        contentType: row.contentType,
        contentId: row.contentId,
        createdAt: row.createdAt.toISOString(),
        content: { title: row.title, coverImageUrl: row.coverImageUrl, author: authorFrom(authors, row.authorId) },
      }));
    },

    async collections(records: CollectionRecord[]): Promise<Collection[]> {
      const owners = await users.findByIds([...new Set(records.map((record) => record.ownerId))]);
      return records.map((record) => ({
        id: record.id,
        name: record.name,
        description: record.description,
        owner: authorFrom(owners, record.ownerId),
        itemCount: record.itemCount,
        createdAt: record.createdAt.toISOString(),
      }));
    },
  };
}

export type Views = ReturnType<typeof views>;
