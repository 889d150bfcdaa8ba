import {
  notificationCreated,
  notificationsUserErased,
  notificationRetracted,
  notificationsRead,
  notificationsStreamsReplaced,
} from '@recipes/contracts';
import type { PublishedEvent } from '@recipes/runtime';

/** Every event this service writes to its outbox, and where: all of them for its own instances' streams. */
export const published: PublishedEvent[] = [
  {
    event: notificationCreated,
    from: '`record` in src/notifications.ts, straight to the broker (a prompt: `Prompts`)',
  },
  {
    event: notificationRetracted,
    from: '`retract` and `retractAbout` in src/notifications.ts, `follow` in src/blocks.ts, `retractCaused` in src/erasure.ts',
  },
  { event: notificationsRead, from: '`markRead` and `markAllRead` in src/notifications.ts' },
  { event: notificationsStreamsReplaced, from: '`open` in src/stream/streams.ts' },
  {
    event: notificationsUserErased,
    from: '`eraseUser` in @recipes/runtime, once src/erasure.ts has erased a deleted user',
  },
];
