import { authPlugin } from '@recipes/auth';
import type { Pool } from '@recipes/db';
import { UserDirectory } from '@recipes/directory';
import { createApp, type ReadinessChecks } from '@recipes/http';
import type { Logger } from '@recipes/logging';
import type { ServiceParts } from '@recipes/runtime';
import type { NotificationsConfig } from './config.js';
import { commentMentionCreatedHandler } from './events/handlers/comment-mention-created.js';
import { commentMentionDeletedHandler } from './events/handlers/comment-mention-deleted.js';
import { userTaggedHandler } from './events/handlers/user-tagged.js';
import { notifications } from './notifications.js';
import notificationRoutes from './routes/notifications/index.js';

export interface NotificationsDependencies {
  config: NotificationsConfig;
  /** PEM of the users service's public key: tokens are verified, never issued, here. */
  publicKey: string;
  pool: Pool;
  logger: Logger;
  readiness?: ReadinessChecks;
}

/** The HTTP app and the event handlers, sharing one directory of users. */
export async function composeNotifications({
  config,
  publicKey,
  pool,
  logger,
  readiness,
}: NotificationsDependencies): Promise<Required<ServiceParts>> {
  const app = await createApp({
    title: 'notifications',
    description: 'Notifications from mentions and tags',
    logger,
    trustProxy: config.TRUST_PROXY,
    ...(readiness ? { readiness } : {}),
  });

  await app.register(authPlugin, { publicKey, issuer: config.JWT_ISSUER, audience: config.JWT_AUDIENCE });

  const directory = new UserDirectory({ pool, usersUrl: config.USERS_INTERNAL_URL });
  const userNotifications = notifications(pool, directory);
  await app.register(notificationRoutes, { prefix: '/api/notifications', notifications: userNotifications });

  return {
    app,
    handlers: [
      ...directory.handlers(),
      commentMentionCreatedHandler(userNotifications),
      commentMentionDeletedHandler(userNotifications),
      userTaggedHandler(userNotifications),
    ],
  };
}
