import { UserDirectory } from '@recipes/directory';
import type { PartsContext } from '@recipes/runtime';
import type { NotificationsConfig } from './config.js';
import { notifications } from './notifications.js';
import { streams } from './stream/streams.js';

/** The notifications domain, the streams this instance holds, and what it knows of users, the actors it shows (libs/directory). */
export function parts({ config, pool }: PartsContext<NotificationsConfig>) {
  const directories = { users: new UserDirectory({ pool, usersUrl: config.USERS_INTERNAL_URL }) };
  return {
    directories,
    notifications: notifications(pool, directories.users),
    streams: streams(pool, directories.users, { keepAliveMs: config.STREAM_KEEP_ALIVE_MS, ticketsPerUser: config.STREAM_TICKETS_PER_USER }),
  };
}

export type NotificationsParts = ReturnType<typeof parts>;
