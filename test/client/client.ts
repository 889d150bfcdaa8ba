/**
 * A client of the public API written against nothing but the types openapi-typescript generates from the
 * gateway's OpenAPI document (`npm run check:client` generates them into generated/ and type-checks this
 * file; test/openapi-client.test.ts shows the check failing when the document breaks the client). Plain
 * fetch: every path, parameter, body and answer is typed by the generated `paths`.
 *
 * `mentionFlow` registers two users; one publishes a recipe, the other comments on it mentioning the first,
 * who then reads the notification; `muteFlow` has one user mute another and list their mutes;
 * `notificationsByCursor` reads a user's notifications page by page by cursor; `sessionFlow` keeps a user
 * signed in by refreshing, then signs them out; `replyFlow` replies to a comment and reads the reply's
 * notification as an inbox shows it (the comment and its recipe by id). test/system.test.ts runs
 * the first against the whole system, test/inbox-control.test.ts the second, test/lists.test.ts the third,
 * test/sessions.test.ts the fourth, test/conversations.test.ts the last.
 */
import type { components, paths } from '../../generated/api.js';

type Method = 'get' | 'put' | 'post' | 'patch' | 'delete';
export type Problem = components['schemas']['Problem'];
/** The resources by the names the document gives them (its `components.schemas`). */
export type Author = components['schemas']['Author'];
export type RecipeSummary = components['schemas']['RecipeSummary'];
export type Comment = components['schemas']['Comment'];
export type Notification = components['schemas']['Notification'];
export type Pagination = components['schemas']['Pagination'];

/** What `mentionFlow` ends with, in the named schemas. */
export interface MentionFlowResult {
  ada: Author;
  bob: Author;
  recipe: RecipeSummary;
  comment: Comment;
  notification: Notification;
  unreadCount: number;
}

/** The operation the document has at `path` for `method`. */
type Operation<P extends keyof paths, M extends Method> = NonNullable<paths[P][M]>;
type ParametersOf<O> = O extends { parameters: infer Parameters } ? Parameters : never;
type PathParameters<O> = ParametersOf<O> extends { path: infer Path } ? Path : never;
type QueryParameters<O> = ParametersOf<O> extends { query?: infer Query } ? Query : never;
type JsonBody<O> = O extends { requestBody: { content: { 'application/json': infer Body } } } ? Body : never;

/** What a call needs: path parameters and a JSON body exactly where the operation has them. */
export type Input<O> = ([PathParameters<O>] extends [never] ? { params?: undefined } : { params: PathParameters<O> }) &
  ([JsonBody<O>] extends [never] ? { body?: undefined } : { body: JsonBody<O> }) & {
    query?: QueryParameters<O>;
    token?: string;
  };

/** Every answer the operation declares, as a union the caller narrows by `status`. */
export type Answer<O> = O extends { responses: infer Responses }
  ? {
      [S in keyof Responses]: {
        status: S;
        body: Responses[S] extends { content: infer Content } ? Content[keyof Content] : undefined;
      };
    }[keyof Responses]
  : never;

export function apiClient(baseUrl: string) {
  return async function call<P extends keyof paths, M extends Method>(
    method: M,
    path: P,
    input: Input<Operation<P, M>>,
  ): Promise<Answer<Operation<P, M>>> {
    const params = (input.params ?? {}) as Record<string, string>;
    const url = new URL(
      `${baseUrl}${String(path).replace(/\{(\w+)\}/g, (_whole, name: string) => encodeURIComponent(params[name] ?? ''))}`,
    );
    for (const [name, value] of Object.entries((input.query ?? {}) as Record<string, string | undefined>)) {
      if (value !== undefined) url.searchParams.set(name, value);
    }
    const response = await fetch(url, {
      method: method.toUpperCase(),
      headers: {
        ...(input.body === undefined ? {} : { 'content-type': 'application/json' }),
        ...(input.token === undefined ? {} : { authorization: `Bearer ${input.token}` }),
      },
      ...(input.body === undefined ? {} : { body: JSON.stringify(input.body) }),
    });
    const text = await response.text();
    return { status: response.status, body: text === '' ? undefined : JSON.parse(text) } as Answer<Operation<P, M>>;
  };
}

/** Fails with the problem's own words when an answer is not the one expected. */
function unexpected(what: string, answer: { status: unknown; body: unknown }): Error {
  const problem = answer.body as Partial<Problem> | undefined;
  return new Error(`${what}: ${String(answer.status)} ${problem?.code ?? ''} ${problem?.detail ?? ''}`);
}

/** Registers two users, mentions one in a comment by the other, and returns the mentioned user's notification. */
export async function mentionFlow(
  baseUrl: string,
  prefix: string,
  { timeoutMs = 10_000 } = {},
): Promise<MentionFlowResult> {
  const call = apiClient(baseUrl);

  const register = async (username: string) => {
    const answer = await call('post', '/api/auth/register', { body: { username, password: 'correct horse battery' } });
    if (answer.status !== 201) throw unexpected(`register ${username}`, answer);
    return answer.body;
  };
  const ada = await register(`${prefix}_ada`);
  const bob = await register(`${prefix}_bob`);

  const published = await call('post', '/api/recipes', {
    token: ada.token,
    body: { title: 'Velvia at dusk', cameraModel: 'X-T5', filmSimulation: 'Velvia' },
  });
  if (published.status !== 201) throw unexpected('publish a recipe', published);
  const recipe = published.body.recipe;

  const commented = await call('post', '/api/recipes/{id}/comments', {
    token: bob.token,
    params: { id: recipe.id },
    body: { content: `What a light, @${ada.user.username}!` },
  });
  if (commented.status !== 201) throw unexpected('comment with a mention', commented);
  const comment = commented.body.comment;

  // The mention reaches the notifications service through the broker: a moment later.
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const listed = await call('get', '/api/notifications', { token: ada.token, query: { limit: '20' } });
    if (listed.status !== 200) throw unexpected('read notifications', listed);
    const notification = listed.body.data.find((candidate) => candidate.commentId === comment.id);
    if (notification) {
      const unread = await call('get', '/api/notifications/unread-count', { token: ada.token });
      if (unread.status !== 200) throw unexpected('count unread notifications', unread);
      return { ada: ada.user, bob: bob.user, recipe, comment, notification, unreadCount: unread.body.count };
    }
    if (Date.now() > deadline) throw new Error(`no notification of comment ${comment.id} within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** Registers two users; the first mutes the second by username, then reads the users they mute. */
export async function muteFlow(baseUrl: string, prefix: string) {
  const call = apiClient(baseUrl);
  const register = async (username: string) => {
    const answer = await call('post', '/api/auth/register', { body: { username, password: 'correct horse battery' } });
    if (answer.status !== 201) throw unexpected(`register ${username}`, answer);
    return answer.body;
  };
  const ada = await register(`${prefix}_ada`);
  const bob = await register(`${prefix}_bob`);

  const muted = await call('put', '/api/users/{id}/mute', { token: ada.token, params: { id: bob.user.username } });
  if (muted.status !== 200) throw unexpected('mute a user', muted);
  const mutes = await call('get', '/api/users/me/mutes', { token: ada.token, query: { limit: '10' } });
  if (mutes.status !== 200) throw unexpected('list the users one mutes', mutes);
  const pagination: Pagination = mutes.body.pagination;
  return { ada: ada.user, bob: bob.user, muted: muted.body.muted, mutes: mutes.body.users, pagination };
}

/**
 * A phone app's session (docs/api.md §11.1): logs in, refreshes its tokens as the access token nears its
 * end (keeping the refresh token each answer brings, which replaces the last), lists the user's sessions,
 * and logs out; what the refresh token and access token get afterwards.
 */
export async function sessionFlow(baseUrl: string, username: string, password: string) {
  const call = apiClient(baseUrl);
  const login = await call('post', '/api/auth/login', { body: { username, password } });
  if (login.status !== 200) throw unexpected('log in', login);
  let { token, refreshToken } = login.body;
  const expiresIn: number = login.body.expiresIn;
  const refreshed = await call('post', '/api/auth/refresh', { body: { refreshToken } });
  if (refreshed.status !== 200) throw unexpected('refresh', refreshed);
  ({ token, refreshToken } = refreshed.body);
  const listed = await call('get', '/api/auth/sessions', { token });
  if (listed.status !== 200) throw unexpected('list sessions', listed);
  const current = listed.body.sessions.find((session) => session.current);
  const loggedOut = await call('post', '/api/auth/logout', { token });
  if (loggedOut.status !== 200) throw unexpected('log out', loggedOut);
  const refreshAfter = await call('post', '/api/auth/refresh', { body: { refreshToken } });
  return {
    expiresIn,
    sessions: listed.body.sessions.length,
    current: current?.id,
    refreshAfterLogout: refreshAfter.status,
  };
}

/**
 * Every notification of the token's user, newest first, read page by page by cursor (docs/api.md §10.1):
 * the first page, then each `pagination.nextCursor` until it is null; with `unread`, the unread ones only.
 */
export async function notificationsByCursor(baseUrl: string, token: string, { limit = 20, unread = false } = {}) {
  const call = apiClient(baseUrl);
  const notifications: string[] = [];
  let cursor: string | undefined;
  let pages = 0;
  do {
    const page = await call('get', '/api/notifications', {
      token,
      query: {
        limit: String(limit),
        ...(unread ? { unread: 'true' as const } : {}),
        ...(cursor === undefined ? {} : { cursor }),
      },
    });
    if (page.status !== 200) throw unexpected(`read notifications after ${cursor ?? 'the start'}`, page);
    notifications.push(...page.body.data.map((notification) => notification.id));
    cursor = page.body.pagination.nextCursor ?? undefined;
    pages += 1;
  } while (cursor !== undefined);
  return { ids: notifications, pages };
}

/**
 * What an inbox shows of a comment's notification without a request per item (docs/api.md §4, §5): the comment
 * by its id, and what it is on among the recipes read by their ids (one request for a whole page of them).
 */
async function inboxItem(call: ReturnType<typeof apiClient>, notification: Notification) {
  const read = await call('get', '/api/comments/{id}', { params: { id: notification.commentId ?? '' } });
  if (read.status !== 200) throw unexpected('read the comment', read);
  const comment: Comment = read.body.comment;
  const found = await call('get', '/api/recipes', {
    query: { ids: [comment.targetId, notification.contentId].join(',') },
  });
  if (found.status !== 200) throw unexpected('read the recipes by id', found);
  const recipes: RecipeSummary[] = found.body.recipes;
  return { comment, recipes };
}

/**
 * A conversation (docs/api.md §11.4): `owner` publishes a recipe, `guest` comments on it, the owner
 * replies; returns the thread as the top-level list and the replies list show it, and the guest's
 * `reply_comment` once it has come through the broker.
 */
export async function replyFlow(baseUrl: string, prefix: string, { timeoutMs = 10_000 } = {}) {
  const call = apiClient(baseUrl);
  const register = async (username: string) => {
    const answer = await call('post', '/api/auth/register', { body: { username, password: 'correct horse battery' } });
    if (answer.status !== 201) throw unexpected(`register ${username}`, answer);
    return answer.body;
  };
  const owner = await register(`${prefix}_owner`);
  const guest = await register(`${prefix}_guest`);
  const published = await call('post', '/api/recipes', {
    token: owner.token,
    body: { title: 'Acros at noon', cameraModel: 'X100V', filmSimulation: 'Acros' },
  });
  if (published.status !== 201) throw unexpected('publish a recipe', published);
  const params = { id: published.body.recipe.id };

  const asked = await call('post', '/api/recipes/{id}/comments', {
    token: guest.token,
    params,
    body: { content: 'Which filter?' },
  });
  if (asked.status !== 201) throw unexpected('comment', asked);
  const question: Comment = asked.body.comment;
  const answered = await call('post', '/api/recipes/{id}/comments', {
    token: owner.token,
    params,
    body: { content: 'A yellow one', parentId: question.id },
  });
  if (answered.status !== 201) throw unexpected('reply', answered);
  const answer: Comment = answered.body.comment;

  const topLevel = await call('get', '/api/recipes/{id}/comments', { params, query: { topLevel: 'true' } });
  if (topLevel.status !== 200) throw unexpected('list top-level comments', topLevel);
  const replies = await call('get', '/api/comments/{id}/replies', { params: { id: question.id } });
  if (replies.status !== 200) throw unexpected('list replies', replies);

  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const listed = await call('get', '/api/notifications', { token: guest.token, query: { types: 'reply_comment' } });
    if (listed.status !== 200) throw unexpected('read notifications', listed);
    const notification: Notification | undefined = listed.body.data.find(
      (candidate) => candidate.commentId === answer.id,
    );
    if (notification) {
      const inbox = await inboxItem(call, notification);
      return {
        question,
        answer,
        topLevel: topLevel.body.comments,
        replies: replies.body.comments,
        notification,
        inbox,
      };
    }
    if (Date.now() > deadline) throw new Error(`no reply_comment for comment ${answer.id} within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
