import { userBlocked, userUnblocked } from '@recipes/contracts';
import { type EventHandler, on } from '@recipes/messaging';
import type { Blocks } from '../../blocks.js';

/** A block silences the blocked user and retracts what they caused the blocker (docs/api.md §10). */
export const userBlockedHandler = (blocks: Blocks): EventHandler =>
  on(userBlocked, (relation, event) => blocks.follow(event, relation));

/** An unblock ends the block from now on; nothing retracted comes back. */
export const userUnblockedHandler = (blocks: Blocks): EventHandler =>
  on(userUnblocked, (relation, event) => blocks.follow(event, relation));
