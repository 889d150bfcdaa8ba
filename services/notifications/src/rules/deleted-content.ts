import type { WithholdingRule } from './rule.js';

/**
 * Nothing is stored about a recipe, post or collection deleted before (`retractAboutContent` took back what was
 * there), whichever comes first, the deletion or the event.
 */
export const deletedContent: WithholdingRule = {
  name: 'deleted_content',
  sql: 'EXISTS (SELECT 1 FROM deleted_content d WHERE d.content_id = about_id AND d.content_type = about_type)',
  withholds: (world, n) => world.deletedContent.some((d) => d.id === n.contentId && d.type === n.contentType),
};
