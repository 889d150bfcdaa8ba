/** A new post becomes content that can be saved (content directory). */
export { postCreatedHandler } from '@recipes/directory';
