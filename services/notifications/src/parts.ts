import { RelationDirectory, UserDirectory } from '@recipes/directory';
import type { PartsContext } from '@recipes/runtime';
import type { NotificationsConfig } from './config.js';
import { blocks } from './blocks.js';
import { deletedComments } from './conversations.js';
import { dataExport } from './data-export.js';
import { erasureSteps } from './erasure.js';
import { notificationGroups } from './groups.js';
import { notifications } from './notifications.js';
import { preferences } from './preferences.js';
import { webPush } from './push/index.js';
import { streams } from './stream/streams.js';

/**
 * The notifications domain, the streams this instance holds, what it knows of users (the actors it shows)
 * and of who mutes or blocks whom (libs/directory), and its users' preferences.
 */
export function parts({ config, pool, endedSessions, logger, prompts }: PartsContext<NotificationsConfig>) {
  const directories = {
    users: new UserDirectory({ pool, usersUrl: config.USERS_INTERNAL_URL }),
    relations: new RelationDirectory(pool),
  };
  const ownPreferences = preferences(pool);
  return {
    directories,
    blocks: blocks(directories.relations),
    preferences: ownPreferences,
    dataExport: dataExport(pool, directories.users, ownPreferences),
    erasure: { pool, service: 'notifications' as const, steps: erasureSteps(pool) },
    notifications: notifications(pool, directories.users, prompts),
    deletedComments: deletedComments(pool),
    groups: notificationGroups(pool, directories.users),
    streams: streams(
      pool,
      directories.users,
      { keepAliveMs: config.STREAM_KEEP_ALIVE_MS, ticketsPerUser: config.STREAM_TICKETS_PER_USER },
      endedSessions,
    ),
    push: webPush({ pool, config, directory: directories.users, sessionEnds: endedSessions, logger }),
  };
}

export type NotificationsParts = ReturnType<typeof parts>;
