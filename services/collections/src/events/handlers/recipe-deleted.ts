/**
 * A deleted recipe leaves everyone's saved items (content directory; trigger `forget_deleted_content`,
 * migrations/002_counts.sql).
 */
export { recipeDeletedHandler } from '@recipes/directory';
