// Users who leave, under the same faults (docs/api.md §11.2, issue 48): each registers, does what the
// workload's users do (recipes and posts tagging them, comments on their things mentioning them or
// replying to them, saves, collections, favorites, mutes and blocks), has a workload user comment on,
// favorite and save its recipe, then deletes its account with its password. They are not among the
// workload's users (nobody there mentions, tags or saves them), so the workload's own checks hold as
// they were; what they did to the workload's users must go with them. Their answers are kept apart, for
// checks of their own (erasure-checks.mjs).
import { randomUUID } from 'node:crypto';
import { apiClient, outcomeOf } from './client.mjs';
import { erasureChecks } from './erasure-checks.mjs';

const PASSWORD = 'correct horse battery';

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, Math.max(0, ms)));

/** Up to `count` of the workload's users, each once. */
const someOf = (rng, users, count) => rng.shuffle([...users]).slice(0, count);

/** How often each thing a leaver does is chosen, relative to the others. */
const weights = { recipe: 3, post: 2, collection: 2, comment: 6, save: 3, react: 2, relate: 1, preferences: 1 };

/**
 * Registers a user and sets them to work, until each has deleted their account; one leaver after another
 * per loop, `loops` at once, until `stop()`.
 */
export function startDeletions({ apiUrl, world, rng, loops = 2, actions = [4, 10], pauseMs = [200, 1_500] }) {
  const { call, requests } = apiClient(apiUrl);
  /**
   * Every leaver: `{ id, username, made: { recipes, posts, collections }, commentedOn: [{ type, id }],
   * witnesses: [userId], deletion }`; `deletion`: 202, 'uncertain' (never answered but
   * unavailable: it may have begun) or undefined (never begun).
   */
  const leavers = [];
  /** Answers the API should not have given: `{ action, status }`. */
  const wrong = [];
  let running = true;

  const ask = async (action, method, path, options) => {
    const reply = await call(`deletions:${action}`, method, path, options);
    // A deletion's answers are judged by `leave`.
    if (action !== 'delete' && outcomeOf(reply.status, action) === 'unexpected')
      wrong.push({ action, status: reply.status });
    return reply;
  };

  /** `action` again while the API is unavailable, a few times; the last reply. */
  async function retried(action) {
    let reply;
    for (let attempt = 1; attempt <= 5 && running; attempt += 1) {
      reply = await action();
      if (outcomeOf(reply.status) !== 'unavailable') return reply;
      await sleep(500);
    }
    return reply ?? { status: 0 };
  }

  async function register() {
    for (let attempt = 1; attempt <= 10 && running; attempt += 1) {
      const username = `chaos_leaver_${randomUUID().slice(0, 8)}`;
      const reply = await ask('register', 'POST', '/auth/register', { body: { username, password: PASSWORD } });
      if (reply.status === 201 && reply.body)
        return { id: reply.body.user.id, username, token: reply.body.token, own: reply.body.user };
      await sleep(500);
    }
    return undefined;
  }

  /** One thing a leaver does; what the API confirmed goes into `leaver`. */
  function act(leaver, own) {
    const token = leaver.token;
    const users = world.users;
    const pickLive = (items) => own.pick(items.filter((item) => !item.deleted && !item.gone));
    return {
      async recipe() {
        const tagged = someOf(own, users, own.int(0, 2));
        const body = {
          title: 'Leaving soon',
          cameraModel: 'X100V',
          filmSimulation: 'Classic Chrome',
          imageUrls: own.chance(0.5) ? [`https://cdn.example.com/l/${randomUUID()}.jpg`] : [],
          taggedUsernames: tagged.map((u) => u.username),
        };
        const reply = await ask('recipe', 'POST', '/recipes', { body, token });
        if (reply.status === 201 && reply.body) leaver.made.recipes.push(reply.body.recipe.id);
      },
      async post() {
        const tagged = someOf(own, users, own.int(0, 2));
        const body = { title: 'Leaving post', taggedUsernames: tagged.map((u) => u.username) };
        const reply = await ask('post', 'POST', '/posts', { body, token });
        if (reply.status === 201 && reply.body) leaver.made.posts.push(reply.body.post.id);
      },
      async collection() {
        const reply = await ask('collection', 'POST', '/collections', { body: { name: 'Leaving board' }, token });
        if (reply.status === 201 && reply.body) leaver.made.collections.push(reply.body.collection.id);
      },
      async comment() {
        // On the workload's things mostly, replying now and then; on its own recipe sometimes.
        const type = own.weighted({ recipe: 5, post: 3, collection: 2 });
        const pool = { recipe: world.recipes, post: world.posts, collection: world.collections }[type];
        const target = own.chance(0.2) && leaver.made.recipes.length > 0 ? undefined : pickLive(pool);
        const [targetType, targetId] = target ? [type, target.id] : ['recipe', own.pick(leaver.made.recipes)];
        if (!targetId) return;
        const mentioned = someOf(own, users, own.int(0, 2));
        const onTarget = world.comments.filter((c) => c.targetId === targetId);
        const parent = onTarget.length > 0 && own.chance(0.35) ? own.pick(onTarget) : undefined;
        const content = `${mentioned.map((u) => `@${u.username}`).join(' ')} before I go`;
        const body = parent ? { content, parentId: parent.id } : { content };
        const reply = await ask('comment', 'POST', `/${targetType}s/${targetId}/comments`, { body, token });
        if (reply.status === 201) leaver.commentedOn.push({ type: targetType, id: targetId });
      },
      async save() {
        const contentType = own.chance(0.6) ? 'recipe' : 'post';
        const theirs = pickLive(contentType === 'recipe' ? world.recipes : world.posts)?.id;
        const mine = own.pick(contentType === 'recipe' ? leaver.made.recipes : leaver.made.posts);
        const contentId = own.chance(0.3) && mine ? mine : theirs;
        if (!contentId) return;
        const reply = await ask('save', 'POST', '/saved-items', { body: { contentType, contentId }, token });
        const collectionId = own.pick(leaver.made.collections);
        if (reply.status === 201 && reply.body && collectionId)
          await ask('addItem', 'POST', `/collections/${collectionId}/items`, {
            body: { savedItemId: reply.body.savedItem.id },
            token,
          });
      },
      async react() {
        const recipe = pickLive(world.recipes);
        if (recipe)
          await ask('favorite', 'PUT', `/recipes/${recipe.id}/${own.pick(['favorite', 'repost'])}`, { token });
      },
      async relate() {
        const [target] = someOf(own, users, 1);
        if (target) await ask('relate', 'PUT', `/users/${target.id}/${own.pick(['mute', 'block'])}`, { token });
      },
      async preferences() {
        const types = { [own.pick(['tag_recipe', 'comment_recipe', 'mention_post_comment'])]: own.chance(0.5) };
        await ask('preferences', 'PUT', '/notifications/preferences', { body: { types }, token });
      },
    };
  }

  /** A workload user comments on, favorites and saves the leaver's recipe: what its erasure must take away. */
  async function witness(leaver, own) {
    const recipeId = own.pick(leaver.made.recipes);
    const [user] = someOf(own, world.users, 1);
    if (!recipeId || !user) return;
    leaver.witnesses.push(user.id);
    const token = user.token;
    await ask('comment', 'POST', `/recipes/${recipeId}/comments`, { body: { content: 'Nice one' }, token });
    await ask('favorite', 'PUT', `/recipes/${recipeId}/favorite`, { token });
    await ask('save', 'POST', '/saved-items', { body: { contentType: 'recipe', contentId: recipeId }, token });
  }

  /**
   * DELETE /users/me, again while unavailable. One answered unavailable (no answer, 504, or a 503 from the
   * gateway that lost the users instance after it had sent the request on) may have begun it all the same:
   * the next is then answered 202 again, with the token of the deleted account (docs/api.md §11.2), never 401.
   */
  async function leave(leaver) {
    let unanswered = false;
    for (let attempt = 1; attempt <= 10; attempt += 1) {
      const reply = await ask('delete', 'DELETE', '/users/me', { body: { password: PASSWORD }, token: leaver.token });
      if (reply.status === 202) return 202;
      if (outcomeOf(reply.status) !== 'unavailable') {
        wrong.push({ action: 'delete', status: reply.status });
        return undefined;
      }
      unanswered = true;
      await sleep(1_000);
    }
    return unanswered ? 'uncertain' : undefined;
  }

  const work = Array.from({ length: loops }, async (_, n) => {
    const own = rng.fork(`leavers ${n}`);
    while (running) {
      const registered = await register();
      if (!registered) continue;
      const leaver = {
        ...registered,
        made: { recipes: [], posts: [], collections: [] },
        commentedOn: [],
        witnesses: [],
        deletion: undefined,
      };
      leavers.push(leaver);
      await retried(async () => {
        await act(leaver, own).recipe();
        return { status: leaver.made.recipes.length > 0 ? 201 : 503 };
      });
      const count = own.int(...actions);
      for (let i = 0; i < count && running; i += 1) {
        await act(leaver, own)[own.weighted(weights)]();
        await sleep(own.between(50, 200));
      }
      await witness(leaver, own);
      // Some of what they did is still on its way through the outboxes when they leave.
      await sleep(own.between(...pauseMs));
      leaver.deletion = await leave(leaver);
      await sleep(own.between(...pauseMs));
    }
  });

  let stopped;
  return {
    requests,
    leavers,
    /** Resolves once each leaver under way has left (or could not). */
    stop() {
      running = false;
      stopped ??= Promise.all(work);
      return stopped;
    },
    /** The checks of the deletions, as rows of the campaign's table, once the system has settled. */
    checks: ({ db, system, apiUrl: url = apiUrl }) =>
      erasureChecks({ db, apiUrl: url, world, leavers, wrong, requests, system }),
  };
}
