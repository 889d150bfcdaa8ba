// What the bench measures, taken from the gateway's merged OpenAPI document: every public GET, so an
// endpoint added later cannot be left out; one without a way to fill in its path stops the bench.
import { serviceFor } from '../services/gateway/dist/route-table.js';

/**
 * The path parameters of each GET, from the seeded fixture; extra variants beside the plain request. A GET that
 * answers nothing without a query (the reads by ids) has `{ query, label }` in place of its path parameter, `label`
 * naming the query in the scenario's name.
 */
function pathsFor({ viewer, recipeId, postId, collectionId, commentId, inbox }) {
  const me = viewer.user.id;
  return {
    '/api/users/me': [''],
    '/api/users/{id}': [me],
    '/api/recipes': [{ query: `?ids=${inbox.recipeIds.join(',')}`, label: `?ids=<${inbox.recipeIds.length} ids>` }],
    '/api/recipes/{id}': [recipeId],
    '/api/posts': [{ query: `?ids=${inbox.postIds.join(',')}`, label: `?ids=<${inbox.postIds.length} ids>` }],
    '/api/posts/{id}': [postId],
    '/api/users/{id}/recipes': [me],
    '/api/recipes/{id}/comments': [recipeId],
    '/api/posts/{id}/comments': [postId],
    '/api/collections/{id}/comments': [collectionId],
    '/api/comments/{id}': [commentId],
    '/api/comments/{id}/replies': [commentId],
    '/api/collections/{id}': [collectionId],
    '/api/collections/{id}/items': [collectionId],
    '/api/users/{id}/saved-items': [me, { query: '?standalone=true' }],
    '/api/users/{id}/collections': [me],
    '/api/notifications': [''],
    '/api/notifications/unread-count': [''],
    '/api/notifications/groups': ['', { query: '?unread=true' }],
    '/api/notifications/preferences': [''],
    '/api/users/me/mutes': [''],
    '/api/users/me/blocks': [''],
    '/api/auth/sessions': [''],
    '/api/push/public-key': [''],
    '/api/push/subscriptions': [''],
  };
}

/** The GET operations of the merged document, as `{ template, listing, secured }`. */
export async function publicGets(gatewayUrl) {
  const response = await fetch(`${gatewayUrl}/docs/json`);
  if (!response.ok) throw new Error(`GET /docs/json: ${response.status}`);
  const document = await response.json();
  return Object.entries(document.paths).flatMap(([template, operations]) =>
    operations.get
      ? [
          {
            template,
            // A listing takes a page number: the scale target applies to it.
            listing: (operations.get.parameters ?? []).some((p) => p.in === 'query' && p.name === 'page'),
            secured: (operations.get.security ?? []).length > 0,
          },
        ]
      : [],
  );
}

/**
 * One scenario per GET operation (and per variant): its name, path, owning service and headers. A token
 * goes with every request to an operation that accepts one, so the caller-specific parts are measured.
 */
export function getScenarios(operations, fixture) {
  const known = pathsFor(fixture);
  const missing = operations.filter((op) => !known[op.template]);
  if (missing.length > 0) {
    throw new Error(
      `no bench scenario for ${missing.map((op) => `GET ${op.template}`).join(', ')}: add one to bench/scenarios.mjs`,
    );
  }
  const headers = { authorization: `Bearer ${fixture.viewer.token}` };
  return operations.flatMap((op) => {
    const [first, ...variants] = known[op.template];
    const [id, plain] = typeof first === 'string' ? [first, { query: '' }] : ['', first];
    const base = op.template.replace('{id}', id);
    return [plain, ...variants].map(({ query, label = query }) => {
      const path = `${base}${query}`;
      const service = serviceFor(base);
      if (!service) throw new Error(`the gateway routes no service for ${base}`);
      return {
        name: `GET ${op.template}${label}`,
        template: op.template,
        listing: op.listing,
        service,
        path,
        ...(op.secured ? { headers } : {}),
      };
    });
  });
}

/** Posting a comment on the viewer's recipe that mentions the friend, through the gateway or directly. */
export function commentPostScenario(fixture) {
  return {
    name: 'POST /api/recipes/{id}/comments (1 mention)',
    service: 'comments',
    path: `/api/recipes/${fixture.recipeId}/comments`,
    method: 'POST',
    headers: { authorization: `Bearer ${fixture.viewer.token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ content: `Lovely tones, @${fixture.friend.user.username}!` }),
  };
}
