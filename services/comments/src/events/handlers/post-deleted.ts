/** A deleted post takes no more comments (content directory). */
export { postDeletedHandler } from '@recipes/directory';
