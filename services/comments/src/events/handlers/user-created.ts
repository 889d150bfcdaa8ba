/** A new user joins the user directory: an author to show, a @name to resolve. */
export { userCreatedHandler } from '@recipes/directory';
