/** Saved items show a recipe's newest title and cover (content directory). */
export { recipeUpdatedHandler } from '@recipes/directory';
