// The campaign's clients: a few concurrent users of the public API doing everything it offers, at a
// moderate pace. What the API confirmed (201s, with the users they mention or tag) is kept in `world`,
// for the checks at the end; what it refused or could not answer is only counted.
import { apiClient, outcomeOf } from './client.mjs';

const PASSWORD = 'correct horse battery';
const MAX_USERS = 60;

/** How often each action is chosen, relative to the others. */
const weights = {
  register: 2,
  avatar: 3,
  recipe: 10,
  post: 6,
  comment: 26,
  favorite: 8,
  repost: 5,
  save: 10,
  unsave: 3,
  collection: 4,
  addItem: 9,
  removeItem: 3,
  deleteRecipe: 2,
  deletePost: 1,
  deleteCollection: 1,
  mute: 2,
  block: 2,
  preferences: 1,
};

const NOTIFICATION_TYPES = [
  'mention_recipe_comment',
  'mention_collection_comment',
  'mention_post_comment',
  'tag_recipe',
  'tag_post',
  'reply_comment',
  'comment_recipe',
  'comment_post',
  'comment_collection',
];

function emptyWorld() {
  return {
    /** Registered (201): `{ id, username, token }`. */
    users: [],
    /** Created (201): `{ id, authorId, tagged: [userId] }`, `deleted` once a DELETE said 200. */
    recipes: [],
    posts: [],
    /**
     * Created (201): `{ id, targetType, targetId, authorId, mentioned: [userId], ownerId, repliedToAuthorId }`;
     * `repliedToAuthorId` is the author of the comment it replies to, or null (docs/api.md §11.4).
     */
    comments: [],
    /** Created (201): `{ id, ownerId }`, `deleted` once a DELETE said 200. */
    collections: [],
    /** Saved (201): `{ id, userId, contentType, contentId }`, `gone` once unsaved. */
    savedItems: [],
    /** Added (201): `{ collection, item }`, the world's own objects. */
    collectionItems: [],
    /** Mutes, blocks and their ends answered 200: `{ kind, userId, targetId, on }` (docs/api.md §10.3). */
    relations: [],
    /** Comments refused 403: `{ authorId, targetType, targetId }`, each of a target whose owner blocked its author. */
    refusedComments: [],
  };
}

/** Up to `count` users other than `self`, each once. */
function others(rng, users, self, count) {
  return rng.shuffle(users.filter((user) => user.id !== self.id)).slice(0, count);
}

const live = (items) => items.filter((item) => !item.deleted && !item.gone);

/** The actions of one client; `label` keeps its usernames apart from other clients'. */
function actions(world, call, rng, label) {
  const mine = (items, user, key) => live(items).filter((item) => item[key] === user.id);
  const pickOwn = (items, user, key) => rng.pick(mine(items, user, key));
  let serial = 0;

  return {
    async register() {
      if (world.users.length >= MAX_USERS) return;
      const username = `chaos_${label}_${serial++}`;
      const { status, body } = await call('register', 'POST', '/auth/register', {
        body: { username, password: PASSWORD },
      });
      if (status === 201) world.users.push({ id: body.user.id, username: body.user.username, token: body.token });
      return status;
    },
    async avatar(user) {
      const avatarUrl = rng.chance(0.2) ? null : `https://cdn.example.com/avatars/${user.username}-${serial++}.jpg`;
      await call('avatar', 'PATCH', '/users/me', { body: { avatarUrl }, token: user.token });
    },
    async recipe(user) {
      const tagged = others(rng, world.users, user, rng.int(0, 2));
      const imageUrls = rng.chance(0.5) ? [`https://cdn.example.com/r/${serial++}.jpg`] : [];
      const body = {
        title: `Chaos ${serial++}`,
        cameraModel: 'X100V',
        filmSimulation: 'Classic Chrome',
        imageUrls,
        taggedUsernames: tagged.map((u) => u.username),
      };
      const reply = await call('recipe', 'POST', '/recipes', { body, token: user.token });
      if (reply.status === 201)
        world.recipes.push({ id: reply.body.recipe.id, authorId: user.id, tagged: tagged.map((u) => u.id) });
      return reply.status;
    },
    async post(user) {
      const tagged = others(rng, world.users, user, rng.int(0, 2));
      const body = { title: `Chaos post ${serial++}`, taggedUsernames: tagged.map((u) => u.username) };
      const reply = await call('post', 'POST', '/posts', { body, token: user.token });
      if (reply.status === 201)
        world.posts.push({ id: reply.body.post.id, authorId: user.id, tagged: tagged.map((u) => u.id) });
    },
    async comment(user) {
      const targetType = rng.weighted({ recipe: 5, post: 3, collection: 2 });
      const pool = { recipe: world.recipes, post: world.posts, collection: world.collections }[targetType];
      if (pool.length === 0) return;
      // Now and then on a deleted target too: the answer must then be 404, and nothing is stored.
      const target = rng.chance(0.9) && live(pool).length > 0 ? rng.pick(live(pool)) : rng.pick(pool);
      const mentioned = others(rng, world.users, user, rng.int(0, 3));
      const content = `${mentioned.map((u) => `@${u.username}`).join(' ')} look at this (${serial++})`;
      // A third of them reply to a comment on the same target (a reply, or a reply to a reply).
      const onTarget = world.comments.filter((c) => c.targetId === target.id);
      const parent = onTarget.length > 0 && rng.chance(0.35) ? rng.pick(onTarget) : undefined;
      const body = parent ? { content, parentId: parent.id } : { content };
      const reply = await call(
        `comment:${targetType}${parent ? ':reply' : ''}`,
        'POST',
        `/${targetType}s/${target.id}/comments`,
        { body, token: user.token },
      );
      if (reply.status === 201) {
        world.comments.push({
          id: reply.body.comment.id,
          targetType,
          targetId: target.id,
          authorId: user.id,
          mentioned: mentioned.map((u) => u.id),
          ownerId: target.authorId ?? target.ownerId,
          repliedToAuthorId: parent ? parent.authorId : null,
        });
      }
      if (reply.status === 403) world.refusedComments.push({ authorId: user.id, targetType, targetId: target.id });
    },
    // Mutes and blocks, mostly started, now and then ended; and a notification type turned on or off.
    async mute(user) {
      await relate(user, 'mute', rng.chance(0.7));
    },
    async block(user) {
      await relate(user, 'block', rng.chance(0.6));
    },
    async preferences(user) {
      const types = { [rng.pick(NOTIFICATION_TYPES)]: rng.chance(0.5) };
      await call('preferences', 'PUT', '/notifications/preferences', { body: { types }, token: user.token });
    },
    async favorite(user) {
      if (world.recipes.length === 0) return;
      const { id } = rng.pick(world.recipes);
      await call('favorite', rng.chance(0.7) ? 'PUT' : 'DELETE', `/recipes/${id}/favorite`, { token: user.token });
    },
    async repost(user) {
      if (world.recipes.length === 0) return;
      const { id } = rng.pick(world.recipes);
      await call('repost', rng.chance(0.7) ? 'PUT' : 'DELETE', `/recipes/${id}/repost`, { token: user.token });
    },
    async save(user) {
      const contentType = rng.chance(0.6) ? 'recipe' : 'post';
      const pool = live(contentType === 'recipe' ? world.recipes : world.posts);
      if (pool.length === 0) return;
      const { id: contentId } = rng.pick(pool);
      const reply = await call('save', 'POST', '/saved-items', { body: { contentType, contentId }, token: user.token });
      if (reply.status === 201)
        world.savedItems.push({ id: reply.body.savedItem.id, userId: user.id, contentType, contentId });
    },
    async unsave(user) {
      const items = mine(world.savedItems, user, 'userId');
      if (items.length === 0) return;
      const item = rng.pick(items);
      const { status } = await call('unsave', 'DELETE', `/saved-items/${item.id}`, { token: user.token });
      if (status === 200 || status === 404) item.gone = true;
    },
    async collection(user) {
      const reply = await call('collection', 'POST', '/collections', {
        body: { name: `Board ${serial++}`, description: 'chaos' },
        token: user.token,
      });
      if (reply.status === 201) world.collections.push({ id: reply.body.collection.id, ownerId: user.id });
    },
    async addItem(user) {
      const [collections, items] = [mine(world.collections, user, 'ownerId'), mine(world.savedItems, user, 'userId')];
      if (collections.length === 0 || items.length === 0) return;
      const [collection, item] = [rng.pick(collections), rng.pick(items)];
      const { status } = await call('addItem', 'POST', `/collections/${collection.id}/items`, {
        body: { savedItemId: item.id },
        token: user.token,
      });
      if (status === 201) world.collectionItems.push({ collection, item });
    },
    async removeItem(user) {
      // Mostly an item the API said it added; now and then any pair, which may well be a 404.
      const added = world.collectionItems.filter(
        ({ collection, item }) => collection.ownerId === user.id && !collection.deleted && !item.gone,
      );
      const pair =
        rng.chance(0.8) && added.length > 0
          ? rng.pick(added)
          : {
              collection: pickOwn(world.collections, user, 'ownerId'),
              item: pickOwn(world.savedItems, user, 'userId'),
            };
      if (!pair.collection || !pair.item) return;
      const path = `/collections/${pair.collection.id}/items`;
      const { status } = await call('removeItem', 'DELETE', path, {
        body: { savedItemId: pair.item.id },
        token: user.token,
      });
      // Removing takes the item out of the saved items too.
      if (status === 200) pair.item.gone = true;
    },
    async deleteRecipe(user) {
      await deleteOwn(user, world.recipes, 'authorId', 'recipes', 'deleteRecipe');
    },
    async deletePost(user) {
      await deleteOwn(user, world.posts, 'authorId', 'posts', 'deletePost');
    },
    async deleteCollection(user) {
      await deleteOwn(user, world.collections, 'ownerId', 'collections', 'deleteCollection');
    },
  };

  async function relate(user, kind, on) {
    const [target] = others(rng, world.users, user, 1);
    if (!target) return;
    const { status } = await call(kind, on ? 'PUT' : 'DELETE', `/users/${target.id}/${kind}`, { token: user.token });
    if (status === 200) world.relations.push({ kind, userId: user.id, targetId: target.id, on });
  }

  async function deleteOwn(user, items, ownerKey, path, action) {
    const own = mine(items, user, ownerKey);
    if (own.length === 0) return;
    const item = rng.pick(own);
    const { status } = await call(action, 'DELETE', `/${path}/${item.id}`, { token: user.token });
    if (status === 200 || status === 404) item.deleted = true;
  }
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Runs `action` (which resolves with the status it got) again while the API is unavailable, at most `attempts` times.
 */
async function retried(action, attempts = 10) {
  for (let attempt = 1; attempt <= attempts; attempt += 1) {
    if (outcomeOf(await action()) !== 'unavailable') return;
    await sleep(1_000);
  }
}

/**
 * Registers `users` users and gives each a recipe, then runs `clients` clients, each drawing its
 * actions from a stream of its own, until `stop()`; that resolves once every client's last call is answered.
 */
export async function startWorkload({ apiUrl, rng, clients = 8, users = 16, pauseMs = [40, 200] }) {
  const world = emptyWorld();
  const { call, requests } = apiClient(apiUrl);
  const setup = actions(world, call, rng.fork('setup'), 's');
  // Before the faults, but the servers may be shared with someone else's: a few tries each.
  await Promise.all(Array.from({ length: users }, () => retried(() => setup.register())));
  if (world.users.length < 2)
    throw new Error(`only ${world.users.length} of ${users} users could register before the faults`);
  await Promise.all(world.users.map((user) => retried(() => setup.recipe(user))));

  let running = true;
  const loops = Array.from({ length: clients }, async (_, n) => {
    const own = rng.fork(`client ${n}`);
    const act = actions(world, call, own, `c${n}`);
    while (running) {
      await act[own.weighted(weights)](own.pick(world.users));
      await sleep(own.between(...pauseMs));
    }
  });
  return {
    world,
    requests,
    async stop() {
      running = false;
      await Promise.all(loops);
    },
  };
}
