import { type ExportPageQuery, nextAfter } from '@recipes/contracts';
import type { Pool } from '@recipes/db';
import type { UserDirectory } from '@recipes/directory';
import { toNotification } from './notifications.js';
import type { NotificationPreferences } from './preferences.js';
import { findNotificationsOfRecipientAfter } from './repository/exports.js';
import { toSubscription } from './push/subscriptions.js';
import { findSubscriptions } from './repository/push-subscriptions.js';

/** A user's notifications and preferences, for their data export (docs/api.md §11.2). */
export function dataExport(pool: Pool, directory: UserDirectory, preferences: NotificationPreferences) {
  return {
    /** A page of their notifications as their list shows them (actors as the directory knows them now). */
    async notifications(userId: string, { after, limit }: ExportPageQuery) {
      const records = await findNotificationsOfRecipientAfter(pool, userId, after ?? null, limit);
      const actors = await directory.findByIds([...new Set(records.map((record) => record.actorId))]);
      const items = records.flatMap((record) => {
        const actor = actors.get(record.actorId);
        return actor
          ? [toNotification(record, { id: actor.id, username: actor.username, avatarUrl: actor.avatarUrl })]
          : [];
      });
      return { items, next: nextAfter(records, limit) };
    },

    preferences: (userId: string) => preferences.get(userId),

    /** Their push subscriptions (docs/api.md §11.3): at most 10 a user, so always one page. */
    pushSubscriptions: async (userId: string, _query: ExportPageQuery) => ({
      items: (await findSubscriptions(pool, userId)).map(toSubscription),
      next: null,
    }),
  };
}

export type DataExport = ReturnType<typeof dataExport>;
