/** A block keeps the blocked user from tagging the blocker (docs/api.md §10). */
export { userBlockedHandler } from '@recipes/directory';
/** An unblock ends that from now on. */
export { userUnblockedHandler } from '@recipes/directory';
