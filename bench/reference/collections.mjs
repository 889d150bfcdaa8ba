// The collections service's reads (services/collections/src/routes/{collections,users}/index.ts), on its pool.
import {
  author,
  idParams,
  integer,
  listingRows,
  listingStatement,
  listPagination,
  listPaginationSchema,
  nullableString,
  object,
  pageOf,
  pageQuery,
  problem,
  sendProblem,
  statement,
  string,
  usersByIds,
  withListLinks,
} from './common.mjs';

// repository/collections.ts.
const columns = `id, owner_id AS "ownerId", name, description, item_count AS "itemCount", deleted, revision, created_at AS "createdAt"`;
const findCollection = statement('find-collection', `SELECT ${columns} FROM collections WHERE id = $1`);
const findCollectionPage = listingStatement(
  'find-collection-page',
  {
    count: 'SELECT count(*)::int AS total FROM collections WHERE owner_id = $1 AND NOT deleted',
    columns,
    from: 'FROM collections WHERE owner_id = $1 AND NOT deleted',
    order: { at: 'created_at', id: 'id', direction: 'desc' },
  },
  1,
);

// repository/saved-items.ts: the rows joined with the read models of content and users.
const rowColumns = `s.id, s.user_id AS "userId", s.content_type AS "contentType", s.content_id AS "contentId",
  s.created_at AS "createdAt", c.title, c.cover_image_url AS "coverImageUrl", c.author_id AS "authorId",
  u.username AS "authorUsername", u.avatar_url AS "authorAvatarUrl"`;
const withContent = `JOIN content_items c ON c.id = s.content_id LEFT JOIN users u ON u.id = c.author_id`;
const findCollectionItemPage = listingStatement(
  'find-collection-item-page',
  {
    count: 'SELECT item_count AS total FROM collections WHERE id = $1',
    columns: rowColumns,
    from: `FROM collection_items ci JOIN saved_items s ON s.id = ci.saved_item_id ${withContent} WHERE ci.collection_id = $1`,
    order: { at: 'ci.added_at', id: 'ci.saved_item_id', direction: 'desc' },
  },
  1,
);
/** `findSavedItemPage`: the filters written into the text, so one statement per combination of them. */
function findSavedItemPage(userId, contentType, standaloneOnly, { limit, offset }) {
  const values = [userId];
  const [items, totals] = [['s.user_id = $1'], ['user_id = $1']];
  if (contentType) {
    const parameter = `$${values.push(contentType)}`;
    items.push(`s.content_type = ${parameter}`);
    totals.push(`content_type = ${parameter}`);
  }
  if (standaloneOnly) {
    items.push('s.collection_count = 0');
    totals.push('standalone');
  }
  const name = `find-saved-item-page${contentType ? '-of-type' : ''}${standaloneOnly ? '-standalone' : ''}`;
  return listingStatement(
    name,
    {
      count: `SELECT coalesce(sum(count), 0)::int AS total FROM saved_item_totals WHERE ${totals.join(' AND ')}`,
      columns: rowColumns,
      from: `FROM saved_items s ${withContent} WHERE ${items.join(' AND ')}`,
      order: { at: 's.created_at', id: 's.id', direction: 'desc' },
    },
    values.length,
  )(...values, limit + 1, offset);
}

/** views.ts `collections`: the owners from the users read model. */
async function collectionViews(pool, records) {
  const owners = await usersByIds(pool, [...new Set(records.map((record) => record.ownerId))]);
  return records.map(({ id, name, description, ownerId, itemCount, createdAt }) => {
    const { username, avatarUrl } = owners.get(ownerId);
    return {
      id,
      name,
      description,
      owner: { id: ownerId, username, avatarUrl },
      itemCount,
      createdAt: createdAt.toISOString(),
    };
  });
}

/** views.ts `savedItems`: authors as joined; the service would look up the unknown ones, the bench has none. */
function savedItemViews(rows) {
  return rows.map((row) => {
    if (row.authorUsername === null) throw new Error(`author ${row.authorId} of saved item ${row.id} is unknown`);
    const { id, userId, contentType, contentId, createdAt, title, coverImageUrl, authorId } = row;
    const contentAuthor = { id: authorId, username: row.authorUsername, avatarUrl: row.authorAvatarUrl };
    return {
      id,
      userId,
      contentType,
      contentId,
      createdAt: createdAt.toISOString(),
      content: { title, coverImageUrl, author: contentAuthor },
    };
  });
}

const collection = object({
  id: string,
  name: string,
  description: string,
  owner: author,
  itemCount: integer,
  createdAt: string,
});
const savedItem = object({
  id: string,
  userId: string,
  contentType: string,
  contentId: string,
  createdAt: string,
  content: object({ title: string, coverImageUrl: nullableString, author }),
});
const savedItemsResponse = object({
  savedItems: { type: 'array', items: savedItem },
  pagination: listPaginationSchema,
});
const collectionsResponse = object({
  collections: { type: 'array', items: collection },
  pagination: listPaginationSchema,
});
const listing = (response) => ({
  schema: { params: idParams, querystring: pageQuery, response: { 200: response, 404: problem } },
});

export function registerCollections(app, pool) {
  /** collections.ts `find`: a collection that exists and is not deleted. */
  const find = async (id) => {
    const record = (await pool.query(findCollection(id))).rows[0];
    return record && !record.deleted ? record : undefined;
  };

  // GET /api/collections/:id — collections.ts `find`, then `views.collections`.
  app.get(
    '/api/collections/:id',
    { schema: { params: idParams, response: { 200: object({ collection }), 404: problem } } },
    async (request, reply) => {
      const record = await find(request.params.id);
      return record
        ? { collection: (await collectionViews(pool, [record]))[0] }
        : sendProblem(reply, 404, 'Collection not found');
    },
  );

  // GET /api/collections/:id/items — collections.ts `items`: the collection, then its page and its item
  // count in one statement (`findCollectionItemPage`), as `views.savedItems`.
  app.get('/api/collections/:id/items', listing(savedItemsResponse), async (request, reply) => {
    const page = pageOf(request.query, 12);
    const record = await find(request.params.id);
    if (!record) return sendProblem(reply, 404, 'Collection not found');
    const { rows, total, next } = listingRows(
      await pool.query(findCollectionItemPage(request.params.id, page.limit + 1, page.offset)),
      page.limit,
    );
    return withListLinks(request, reply, {
      savedItems: savedItemViews(rows),
      pagination: listPagination(page, total, next, 'collection-items'),
    });
  });

  // GET /api/users/:id/saved-items — saved-items.ts `list`: the user from the read model (users.ts
  // `requireUser`), then the page and its total in one statement, as `views.savedItems`. SAVED_ITEMS_VISIBILITY is
  // the default, public: no check of the caller. Only `standalone=true` filters (schemas.ts savedItemsQuery).
  app.get(
    '/api/users/:id/saved-items',
    {
      schema: {
        params: idParams,
        querystring: {
          ...pageQuery,
          properties: { ...pageQuery.properties, standalone: {}, content_type: { enum: ['recipe', 'post'] } },
        },
        response: { 200: savedItemsResponse, 404: problem },
      },
    },
    async (request, reply) => {
      const { id } = request.params;
      const page = pageOf(request.query, 12);
      const [standalone, contentType] = [request.query.standalone === 'true', request.query.content_type];
      await usersByIds(pool, [id]);
      const { rows, total, next } = listingRows(
        await pool.query(findSavedItemPage(id, contentType, standalone, page)),
        page.limit,
      );
      return withListLinks(request, reply, {
        savedItems: savedItemViews(rows),
        pagination: listPagination(page, total, next, 'saved-items'),
      });
    },
  );

  // GET /api/users/:id/collections — collections.ts `listOwnedBy`: the user from the read model, the page
  // and its count in one statement, then `views.collections`.
  app.get('/api/users/:id/collections', listing(collectionsResponse), async (request, reply) => {
    const { id } = request.params;
    const page = pageOf(request.query, 12);
    await usersByIds(pool, [id]);
    const { rows, total, next } = listingRows(
      await pool.query(findCollectionPage(id, page.limit + 1, page.offset)),
      page.limit,
    );
    return withListLinks(request, reply, {
      collections: await collectionViews(pool, rows),
      pagination: listPagination(page, total, next, 'collections'),
    });
  });
}
