import { EXPORT_PAGE_LIMIT } from '@recipes/contracts';
import type { Pool } from '@recipes/db';
import type { InternalClient } from '@recipes/directory';
import { type Accounts, toAuthor } from './accounts.js';
import { findRelatedAfter, type RelationKind } from './repository.js';
import type { Sessions } from './sessions.js';

/** Where each part of a user's export is held: the internal routes of each service. */
export interface ExportSources {
  content: InternalClient;
  comments: InternalClient;
  collections: InternalClient;
  notifications: InternalClient;
}

interface Page {
  items: unknown[];
  next: string | null;
}

/** Every item of an export path of another service, asked a page at a time, as they are wanted. */
async function* pagesOf(client: InternalClient, path: string): AsyncGenerator<unknown> {
  let after: string | null = null;
  do {
    const page = (await client.get(`${path}?limit=${EXPORT_PAGE_LIMIT}${after === null ? '' : `&after=${after}`}`)) as
      Page | undefined;
    yield* page?.items ?? [];
    after = page?.next ?? null;
  } while (after !== null);
}

/** `"key":[…]` of every item `items` gives, written as they come. */
async function* jsonArray(key: string, items: AsyncIterable<unknown>): AsyncGenerator<string> {
  yield `,${JSON.stringify(key)}:[`;
  let first = true;
  for await (const item of items) {
    yield `${first ? '' : ','}${JSON.stringify(item)}`;
    first = false;
  }
  yield ']';
}

/**
 * A user's data export (docs/api.md §11.2, GDPR Art. 20): one JSON document, written as it is gathered,
 * each part in the shape the API shows it. Every part is read a page at a time as the response is
 * drained, so memory stays flat however much the user made.
 */
export function dataExport(pool: Pool, accounts: Accounts, sessions: Sessions, sources: ExportSources) {
  async function* related(userId: string, kind: RelationKind): AsyncGenerator<unknown> {
    let after: string | null = null;
    do {
      const rows = await findRelatedAfter(pool, userId, kind, after, EXPORT_PAGE_LIMIT);
      yield* rows;
      after = rows.length === EXPORT_PAGE_LIMIT ? rows.at(-1)!.id : null;
    } while (after !== null);
  }

  return {
    /** The document, in pieces; undefined when `userId` is no live account. `sessionId` marks the current session. */
    async open(userId: string, sessionId: string | null): Promise<AsyncGenerator<string> | undefined> {
      const user = await accounts.find(userId);
      if (!user) return undefined;
      const of = (service: keyof ExportSources, part: string) =>
        pagesOf(sources[service], `/internal/${service}/export/${userId}/${part}`);
      return (async function* document() {
        yield `{"exportedAt":${JSON.stringify(new Date().toISOString())},"user":${JSON.stringify(toAuthor(user))}`;
        yield* jsonArray('recipes', of('content', 'recipes'));
        yield* jsonArray('posts', of('content', 'posts'));
        yield* jsonArray('collections', of('collections', 'collections'));
        yield* jsonArray('savedItems', of('collections', 'saved-items'));
        yield* jsonArray('comments', of('comments', 'comments'));
        yield* jsonArray('notifications', of('notifications', 'notifications'));
        yield* jsonArray('mutes', related(userId, 'mute'));
        yield* jsonArray('blocks', related(userId, 'block'));
        const preferences = (await sources.notifications.get(
          `/internal/notifications/export/${userId}/preferences`,
        )) as { types: unknown } | undefined;
        yield `,"preferences":${JSON.stringify(preferences?.types ?? {})}`;
        const live = (await sessions.list(userId)).map((session) => ({
          id: session.id,
          createdAt: session.createdAt.toISOString(),
          lastUsedAt: session.lastUsedAt.toISOString(),
          userAgent: session.userAgent,
          current: session.id === sessionId,
        }));
        yield `,"sessions":${JSON.stringify(live)}`;
        yield* jsonArray('pushSubscriptions', of('notifications', 'push-subscriptions'));
        yield '}';
      })();
    },
  };
}

export type DataExport = ReturnType<typeof dataExport>;
