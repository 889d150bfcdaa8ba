import { type ContentSnapshot, contentSnapshotSchema, type ContentType, NOBODY } from '@recipes/contracts';
import type { Pool, Queryable } from '@recipes/db';
import { handleOnce } from '@recipes/outbox';
import { z } from 'zod';
import { InternalClient } from './internal-client.js';
import { OwnerLookups, type OwnerLookupsSettings } from './owner-lookups.js';

export interface ContentItem extends ContentSnapshot {
  contentType: ContentType;
}

/**
 * A deleted item keeps no author, title or cover: its author may delete their account after, and nothing
 * here should name them (their own words may).
 */
async function upsertContent(db: Queryable, item: ContentItem): Promise<void> {
  await db.query(
    `INSERT INTO content_items (id, content_type, author_id, title, cover_image_url, deleted, revision, created_at)
     VALUES ($1, $2, CASE WHEN $6 THEN $9::uuid ELSE $3::uuid END, CASE WHEN $6 THEN '' ELSE $4 END,
             CASE WHEN $6 THEN NULL ELSE $5 END, $6, $7, $8)
     ON CONFLICT (id) DO UPDATE
       SET author_id = EXCLUDED.author_id, title = EXCLUDED.title, cover_image_url = EXCLUDED.cover_image_url,
           deleted = EXCLUDED.deleted, revision = EXCLUDED.revision
       WHERE content_items.revision < EXCLUDED.revision`,
    [
      item.id,
      item.contentType,
      item.authorId,
      item.title,
      item.coverImageUrl,
      item.deleted,
      item.revision,
      item.createdAt,
      NOBODY,
    ],
  );
}

const internalPath: Record<ContentType, string> = { recipe: 'recipes', post: 'posts' };
const oneContent = z.object({ content: contentSnapshotSchema });

export interface ContentDirectorySettings extends OwnerLookupsSettings {
  pool: Pool;
  /** The content service, for content the events have not brought yet (read-your-writes). */
  contentUrl: string;
  timeoutMs?: number;
}

/**
 * This service's knowledge of recipes and posts. Events keep it current; content it has not heard of yet
 * (created a moment ago) is asked of the content service once and remembered, and content that service
 * says does not exist is not asked about again for a few seconds (owner-lookups.ts).
 */
export class ContentDirectory {
  private readonly pool: Pool;
  private readonly content: InternalClient;
  private readonly lookups: OwnerLookups<ContentItem>;

  constructor({ pool, contentUrl, timeoutMs = 2_000, ...lookups }: ContentDirectorySettings) {
    this.pool = pool;
    this.content = new InternalClient('content', contentUrl, timeoutMs);
    this.lookups = new OwnerLookups(lookups);
  }

  /** Takes in a snapshot an event brought, once per event; an older one than held changes nothing. */
  async remember(
    contentType: ContentType,
    snapshot: ContentSnapshot,
    event: { id: string; type: string },
  ): Promise<void> {
    await handleOnce(this.pool, event, (tx) => upsertContent(tx, { ...snapshot, contentType }));
  }

  /** The recipe or post, deleted or not; undefined when it never existed. */
  async find(contentType: ContentType, id: string): Promise<ContentItem | undefined> {
    const { rows } = await this.pool.query<ContentItem>(
      `SELECT id, content_type AS "contentType", author_id AS "authorId", title, cover_image_url AS "coverImageUrl",
              deleted, revision, to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS "createdAt"
         FROM content_items WHERE id = $1 AND content_type = $2`,
      [id, contentType],
    );
    if (rows[0]) return rows[0];
    return this.lookups.find(`${contentType}:${id}`, async () => {
      const body = await this.content.get(`/internal/content/${internalPath[contentType]}/${id}`);
      if (body === undefined) return undefined;
      const item = { ...oneContent.parse(body).content, contentType };
      await upsertContent(this.pool, item);
      return item;
    });
  }
}
