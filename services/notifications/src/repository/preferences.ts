import type { Queryable } from '@recipes/db';
import type { NotificationType } from './rows.js';

/** The types `recipientId` has set, on or off; the others are on (docs/api.md §10). */
export async function findPreferences(db: Queryable, recipientId: string): Promise<Map<NotificationType, boolean>> {
  const { rows } = await db.query<{ type: NotificationType; enabled: boolean }>(
    'SELECT type, enabled FROM notification_preferences WHERE recipient_id = $1',
    [recipientId],
  );
  return new Map(rows.map((row) => [row.type, row.enabled]));
}

/** Sets each of `types` on or off for `recipientId`, in one statement. */
export async function setPreferences(
  db: Queryable,
  recipientId: string,
  types: [NotificationType, boolean][],
): Promise<void> {
  if (types.length === 0) return;
  await db.query(
    `INSERT INTO notification_preferences (recipient_id, type, enabled)
     SELECT $1, type, enabled FROM unnest($2::text[], $3::boolean[]) AS t (type, enabled)
     ON CONFLICT (recipient_id, type) DO UPDATE SET enabled = EXCLUDED.enabled, updated_at = now()`,
    [recipientId, types.map(([type]) => type), types.map(([, enabled]) => enabled)],
  );
}
