/** A new user joins the user directory: an owner of collections, an author of saved content. */
export { userCreatedHandler } from '@recipes/directory';
