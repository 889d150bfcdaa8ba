/** The content directory keeps a recipe's newest snapshot. */
export { recipeUpdatedHandler } from '@recipes/directory';
