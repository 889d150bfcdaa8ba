/** A new recipe becomes content that can be saved (content directory). */
export { recipeCreatedHandler } from '@recipes/directory';
