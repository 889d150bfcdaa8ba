import { unavailable } from '@recipes/contracts';
import { forgetLimitCounts, type SharedStoreSlot } from '@recipes/http';
import type { AccountCounts } from '../deletions.js';
import { forgetFailuresOfUsername } from '../shared-failure-counter.js';
import { EXPORTS_LIMIT } from './users/export.js';

/**
 * What this service counts about one account in the shared store (docs/architecture.md §11): its exports, by id,
 * and the failed logins for its name from each address (`loginGuard`'s pairs, routes/password-checks.ts), by
 * username. Forgotten with a deleted account (src/deletions.ts); without a store (each instance counting in its
 * memory, which forgets within a window) there is nothing to forget. While the store is away, `unavailable`.
 */
export function accountCounts(slot: SharedStoreSlot): AccountCounts {
  return {
    async forget(userId, username) {
      const store = slot.current;
      if (!store) return;
      await forgetLimitCounts(store, [EXPORTS_LIMIT], userId);
      await forgetFailuresOfUsername(store, 'pairs', username).catch((error: unknown) => {
        throw Object.assign(unavailable('The shared store is unavailable: counts cannot be forgotten now'), {
          cause: error,
        });
      });
    },
  };
}
