/** A new recipe becomes a target that can be commented on (content directory). */
export { recipeCreatedHandler } from '@recipes/directory';
