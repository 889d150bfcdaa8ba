/**
 * A block keeps the blocked user from commenting on the blocker's content and from mentioning them (docs/api.md §10).
 */
export { userBlockedHandler } from '@recipes/directory';
/** An unblock ends that from now on. */
export { userUnblockedHandler } from '@recipes/directory';
