/**
 * A deleted post leaves everyone's saved items (content directory; trigger `forget_deleted_content`,
 * migrations/002_counts.sql).
 */
export { postDeletedHandler } from '@recipes/directory';
