/** A mute silences the muted user for the muter from now on; earlier notifications stay (the relation directory). */
export { userMutedHandler } from '@recipes/directory';
/** An unmute lets the user notify the muter again, from now on. */
export { userUnmutedHandler } from '@recipes/directory';
