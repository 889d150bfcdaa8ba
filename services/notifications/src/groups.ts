import { type Author, type ListPosition, type ListRequest, notFound } from '@recipes/contracts';
import { type Pool, withTransaction } from '@recipes/db';
import type { UserDirectory } from '@recipes/directory';
import type { Logger } from '@recipes/logging';
import { announceRead } from './notifications.js';
import * as groups from './repository/groups.js';
import { lockRecipient } from './repository/notifications.js';
import * as reads from './repository/reads.js';
import type { NotificationType, TargetType } from './repository/rows.js';

/** A group as its recipient sees it (docs/api.md §10.5). */
export interface NotificationGroup {
  groupKey: string;
  type: NotificationType;
  contentType: TargetType;
  contentId: string;
  count: number;
  unreadCount: number;
  actors: Author[];
  actorCount: number;
  latestNotificationId: string;
  latestAt: string;
}

/** Grouped notifications, for the clients that ask for them: read from the same rows as the flat list. */
export function notificationGroups(pool: Pool, directory: UserDirectory) {
  return {
    /**
     * Latest first, by page or after a position, as the walk's first page found them; the actors as the users read
     * model shows them now.
     */
    async list(
      recipientId: string,
      filter: { unreadOnly: boolean },
      request: ListRequest,
      log: Pick<Logger, 'warn'>,
    ): Promise<{ groups: NotificationGroup[]; total: number; next: ListPosition | null }> {
      const walkedAsOf = 'after' in request ? request.after.asOf : undefined;
      const { rows, total, next, asOf } = await groups.findGroupPage(pool, recipientId, filter, request, walkedAsOf);
      const actors = await directory.findByIds([...new Set(rows.flatMap((row) => row.actorIds))]);
      const shown = rows.map(({ actorIds, latestAt, ...group }) => ({
        ...group,
        actors: actorIds.flatMap((id) => {
          const actor = actors.get(id);
          if (actor) return [{ id: actor.id, username: actor.username, avatarUrl: actor.avatarUrl }];
          // Only a forged or corrupted event names a user the users service does not know.
          log.warn({ groupKey: group.groupKey, actorId: id }, 'actor unknown to the users service left out of a group');
          return [];
        }),
        latestAt: latestAt.toISOString(),
      }));
      // The next page is ordered as this one was (repository/groups.ts).
      return { groups: shown, total, next: next && { ...next, asOf } };
    },

    /** Marks the group's unread notifications read; 404 when the recipient has no notification in it. */
    async markRead(recipientId: string, groupKey: string, correlationId: string): Promise<number> {
      return withTransaction(pool, async (tx) => {
        await lockRecipient(tx, recipientId);
        if (!(await groups.hasGroup(tx, recipientId, groupKey))) throw notFound('Notification group not found');
        const marked = await reads.markGroupRead(tx, recipientId, groupKey);
        await announceRead(tx, recipientId, marked, correlationId);
        return marked.updated;
      });
    },
  };
}

export type NotificationGroups = ReturnType<typeof notificationGroups>;
