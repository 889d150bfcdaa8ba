/** A renamed user or a new avatar reaches the user directory, and so every listing that shows them. */
export { userUpdatedHandler } from '@recipes/directory';
