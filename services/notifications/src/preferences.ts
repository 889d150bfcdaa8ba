import type { Pool } from '@recipes/db';
import * as repository from './repository/preferences.js';
import { notificationTypes, type NotificationType } from './repository/rows.js';

/** Every notification type, on or off for one user. */
export type Preferences = Record<NotificationType, boolean>;

/**
 * Notification preferences (docs/api.md §10): each type on unless its recipient turned it off. A type
 * turned off stores nothing from then on (`typeTurnedOff`, src/rules/type-turned-off.ts); what was stored
 * stays.
 */
export function preferences(pool: Pool) {
  async function get(recipientId: string): Promise<Preferences> {
    const set = await repository.findPreferences(pool, recipientId);
    return Object.fromEntries(notificationTypes.map((type) => [type, set.get(type) ?? true])) as Preferences;
  }

  return {
    get,

    /** Sets the types given, leaves the others as they were, and gives them all. */
    async set(recipientId: string, types: Partial<Preferences>): Promise<Preferences> {
      const given = Object.entries(types).filter(
        (entry): entry is [NotificationType, boolean] => typeof entry[1] === 'boolean',
      );
      await repository.setPreferences(pool, recipientId, given);
      return get(recipientId);
    },
  };
}

export type NotificationPreferences = ReturnType<typeof preferences>;
