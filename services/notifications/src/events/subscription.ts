import {
  notificationCreated,
  notificationRetracted,
  notificationsRead,
  notificationsStreamsReplaced,
} from '@recipes/contracts';
import { on } from '@recipes/messaging';
import type { InstanceSubscription } from '@recipes/runtime';
import type { NotificationsParts } from '../parts.js';

/**
 * What every instance hears on a queue of its own, for the streams it holds: each event only prompts the
 * user's streams to read what is new from the database, so a lost or repeated one costs nothing.
 */
export function streamSubscription({ streams: { hub } }: NotificationsParts): InstanceSubscription {
  return {
    handlers: [
      on(notificationCreated, async ({ recipientId }) => hub.refresh(recipientId)),
      on(notificationRetracted, async ({ recipientId }) => hub.refresh(recipientId)),
      on(notificationsRead, async ({ recipientId }) => hub.refresh(recipientId)),
      on(notificationsStreamsReplaced, async ({ recipientId, streamIds }) => hub.replace(recipientId, streamIds)),
    ],
    // Whatever was published while the broker was away was not heard: every stream looks for itself.
    onResumed: () => hub.refreshAll(),
  };
}
