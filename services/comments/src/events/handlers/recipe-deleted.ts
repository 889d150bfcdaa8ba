/** A deleted recipe takes no more comments (content directory). */
export { recipeDeletedHandler } from '@recipes/directory';
