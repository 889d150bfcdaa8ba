/** A new user joins the user directory: an author to show, a name to tag, a listing to find. */
export { userCreatedHandler } from '@recipes/directory';
