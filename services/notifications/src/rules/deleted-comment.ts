import type { WithholdingRule } from './rule.js';

/**
 * Nothing is stored from a comment deleted before (`retractAboutComment` took back what was there), whichever
 * comes first, the deletion or the event.
 */
export const deletedComment: WithholdingRule = {
  name: 'deleted_comment',
  sql: 'EXISTS (SELECT 1 FROM deleted_comments dc WHERE dc.comment_id = in_comment)',
  withholds: (world, n) => n.commentId !== null && world.deletedComments.includes(n.commentId),
};
