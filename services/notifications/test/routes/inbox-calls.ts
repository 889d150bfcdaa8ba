import { bearer, mentionEvent, type NotificationsHarness, type TestUser } from '../support.js';

/**
 * The inbox's routes as a recipient calls them, on the harness and actor a test file sets up (read when
 * called, as they are made in its `beforeAll`).
 */
export function inboxCalls(harnessOf: () => NotificationsHarness, actorOf: () => TestUser) {
  const inject = (options: Parameters<NotificationsHarness['app']['inject']>[0]) => harnessOf().app.inject(options);
  const list = (user: TestUser, query = '') =>
    inject({ method: 'GET', url: `/api/notifications${query}`, headers: bearer(user) });
  return {
    list,
    unreadCount: async (user: TestUser) =>
      (await inject({ method: 'GET', url: '/api/notifications/unread-count', headers: bearer(user) })).json()
        .count as number,
    markRead: (user: TestUser, payload: unknown) =>
      inject({ method: 'PATCH', url: '/api/notifications/read', payload: payload as object, headers: bearer(user) }),
    /** `count` mentions of `user` by the actor, `msApart` milliseconds apart; returns their events, oldest first. */
    async mentioned(
      user: TestUser,
      count: number,
      { msApart = 1, start = Date.parse('2026-01-01T00:00:00.000Z') } = {},
    ) {
      const events = Array.from({ length: count }, (_, i) =>
        mentionEvent(actorOf(), user, 'recipe_comment', { createdAt: new Date(start + i * msApart).toISOString() }),
      );
      for (const event of events) await harnessOf().deliver(event);
      return events;
    },
    async idsOf(user: TestUser, query = '?limit=100'): Promise<string[]> {
      return (await list(user, query)).json().data.map((n: { id: string }) => n.id);
    },
  };
}
