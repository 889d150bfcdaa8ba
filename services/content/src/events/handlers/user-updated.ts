/** A renamed user or a new avatar reaches the user directory. */
export { userUpdatedHandler } from '@recipes/directory';
