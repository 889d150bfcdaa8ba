import { relationDirectoryMigrations, userDirectoryMigrations } from '@recipes/directory';
import { onShutdown } from '@recipes/http';
import { openStreamsMetric } from '@recipes/metrics';
import { defineService } from '@recipes/runtime';
import { notificationsConfigSchema } from './config.js';
import { handlers } from './events/handlers/index.js';
import { published } from './events/published.js';
import { streamSubscription } from './events/subscription.js';
import { parts } from './parts.js';
import groupRoutes from './routes/groups/index.js';
import internalRoutes from './routes/internal/index.js';
import notificationRoutes from './routes/notifications/index.js';
import preferenceRoutes from './routes/preferences/index.js';
import pushRoutes from './routes/push/index.js';
import streamRoutes from './routes/stream/index.js';

export type { NotificationsParts } from './parts.js';

export const notificationsService = defineService({
  name: 'notifications',
  description: 'Notifications from mentions and tags, listed and streamed',
  configSchema: notificationsConfigSchema,
  migrations: new URL('../migrations', import.meta.url),
  sharedMigrations: [userDirectoryMigrations, relationDirectoryMigrations],
  publishes: published,
  parts,
  async routes(app, { notifications, groups, preferences, streams, push }) {
    await app.register(notificationRoutes, { prefix: '/api/notifications', notifications });
    await app.register(groupRoutes, { prefix: '/api/notifications/groups', groups, notifications });
    await app.register(preferenceRoutes, { prefix: '/api/notifications/preferences', preferences });
    await app.register(streamRoutes, { prefix: '/api/notifications', streams });
    await app.register(pushRoutes, { prefix: '/api/push', push });
    // Pushes in flight finish (each within its time-out) before the pool closes.
    app.addHook('onClose', push.start(app.metricsRegistry));
    openStreamsMetric(app.metricsRegistry, () => streams.hub.size);
    // Streams end as shutdown starts, so that their clients reconnect to another instance and resume.
    onShutdown(app, () => streams.endAll());
  },
  async internalRoutes(internal, { dataExport }) {
    await internal.register(internalRoutes, { prefix: '/internal/notifications', dataExport });
  },
  handlers,
  instanceSubscription: streamSubscription,
  servesStreams: true,
});
