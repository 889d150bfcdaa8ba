import {
  userBlocked,
  userDeleted,
  userCreated,
  userMuted,
  userUnblocked,
  userSessionEnded,
  userUnmuted,
  userUpdated,
} from '@recipes/contracts';
import type { PublishedEvent } from '@recipes/runtime';

/** Every event this service writes to its outbox, and where. */
export const published: PublishedEvent[] = [
  { event: userCreated, from: '`register` in src/accounts.ts' },
  { event: userUpdated, from: '`changeAvatar` in src/accounts.ts' },
  { event: userMuted, from: '`set` in src/relations.ts' },
  { event: userUnmuted, from: '`set` in src/relations.ts' },
  { event: userBlocked, from: '`set` in src/relations.ts' },
  { event: userUnblocked, from: '`set` in src/relations.ts' },
  {
    event: userSessionEnded,
    from: '`end` in src/sessions.ts, by logout, a replayed refresh token, a password change, an account deletion',
  },
  { event: userDeleted, from: '`start` in src/deletions.ts' },
];
