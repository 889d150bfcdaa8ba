/** A new user joins the user directory: an actor a notification can show. */
export { userCreatedHandler } from '@recipes/directory';
