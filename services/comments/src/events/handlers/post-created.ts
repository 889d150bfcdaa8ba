/** A new post becomes a target that can be commented on (content directory). */
export { postCreatedHandler } from '@recipes/directory';
