import type { WithholdingRule } from './rule.js';

/**
 * One comment gives a user one notification at most (docs/api.md §11.4), whichever type comes first (a mention, a
 * reply, a comment on their content), and none again once it was retracted: an edit that mentions them anew after
 * taking them out does not notify twice. The comment's lock (`lock_comment_notifications`) makes it hold when two
 * come at once; the unique index `notifications_one_per_comment_idx` stands behind it.
 */
export const oncePerComment: WithholdingRule = {
  name: 'notified_of_comment',
  sql: 'EXISTS (SELECT 1 FROM notifications n WHERE n.recipient_id = recipient AND n.comment_id = in_comment)',
  withholds: (world, n) =>
    n.commentId !== null &&
    world.notifications.some((d) => d.recipientId === n.recipientId && d.commentId === n.commentId),
};
