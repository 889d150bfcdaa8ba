/** A renamed user or a new avatar reaches the user directory, and so every notification they caused. */
export { userUpdatedHandler } from '@recipes/directory';
