import { randomUUID } from 'node:crypto';
import { expect } from 'vitest';
import type { JsonCall } from './http.js';
import type { TokenSubject } from './tokens.js';

export interface Account {
  user: TokenSubject & { avatarUrl: string | null };
  token: string;
}

export async function register(call: JsonCall, username: string, password = 'correct horse battery'): Promise<Account> {
  const response = await call<Account>('POST', '/auth/register', { username, password });
  expect(response.status, JSON.stringify(response.body)).toBe(201);
  return response.body;
}

/** POSTs `body` as `author` and returns the created resource under `key`, failing unless it was created. */
export async function create<T = { id: string }>(
  call: JsonCall,
  path: string,
  body: unknown,
  author: Account,
  key: string,
): Promise<T> {
  const response = await call<Record<string, T>>('POST', path, body, author.token);
  expect(response.status, `POST ${path}: ${JSON.stringify(response.body)}`).toBe(201);
  return response.body[key]!;
}

/** Two users and one of everything the API has, owned by `ada`, with `bob` commenting, favoriting and mentioning. */
export async function seedWorld(call: JsonCall, prefix: string) {
  const ada = await register(call, `${prefix}_ada`);
  const bob = await register(call, `${prefix}_bob`);
  const recipe = await create(
    call,
    '/recipes',
    {
      title: 'Classic Chrome street',
      cameraModel: 'X100V',
      filmSimulation: 'Classic Chrome',
      imageUrls: ['https://cdn.example.com/a.jpg'],
      taggedUsernames: [bob.user.username],
    },
    ada,
    'recipe',
  );
  const deletedRecipe = await create(
    call,
    '/recipes',
    { title: 'Gone', cameraModel: 'X-T5', filmSimulation: 'Acros' },
    ada,
    'recipe',
  );
  expect((await call('DELETE', `/recipes/${deletedRecipe.id}`, undefined, ada.token)).status).toBe(200);
  const post = await create(
    call,
    '/posts',
    { title: 'Harbour at dusk', taggedUsernames: [bob.user.username] },
    ada,
    'post',
  );
  const collection = await create(
    call,
    '/collections',
    { name: 'Night shots', description: 'Long exposures' },
    ada,
    'collection',
  );
  const savedItem = await create(
    call,
    '/saved-items',
    { contentType: 'recipe', contentId: recipe.id },
    ada,
    'savedItem',
  );
  expect(
    (await call('POST', `/collections/${collection.id}/items`, { savedItemId: savedItem.id }, ada.token)).status,
  ).toBe(201);
  const savedPost = await create(call, '/saved-items', { contentType: 'post', contentId: post.id }, ada, 'savedItem');
  const comment = await create(
    call,
    `/recipes/${recipe.id}/comments`,
    { content: `Lovely, @${ada.user.username}!` },
    bob,
    'comment',
  );
  await create(call, `/collections/${collection.id}/comments`, { content: 'Great set' }, bob, 'comment');
  await create(call, `/posts/${post.id}/comments`, { content: `@${ada.user.username} where is this?` }, bob, 'comment');
  expect((await call('PUT', `/recipes/${recipe.id}/favorite`, undefined, bob.token)).status).toBe(200);
  expect((await call('PUT', `/recipes/${recipe.id}/repost`, undefined, bob.token)).status).toBe(200);
  return {
    ada,
    bob,
    /** A well-signed token's subject that names no user. */
    ghost: { id: randomUUID(), username: `${prefix}_ghost` },
    ids: {
      recipe: recipe.id,
      deletedRecipe: deletedRecipe.id,
      post: post.id,
      collection: collection.id,
      savedItem: savedItem.id,
      savedPost: savedPost.id,
      comment: comment.id,
      ada: ada.user.id,
      bob: bob.user.id,
    },
  };
}

export type World = Awaited<ReturnType<typeof seedWorld>>;
