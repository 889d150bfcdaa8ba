import { erasedIdHash } from '@recipes/runtime';
import type { WithholdingRule } from './rule.js';

/**
 * Nothing for or from a deleted account once it is erased here (docs/api.md §11.2): an event about them that
 * comes late stores nothing of them. `erased_users` keeps only hashes of ids. Checked here rather than before the
 * handler (`droppingErased`, libs/runtime), so that storing a notification takes no round trip more.
 */
export const erasedUser: WithholdingRule = {
  name: 'erased_user',
  sql: `EXISTS (SELECT 1 FROM erased_users e WHERE e.id_hash IN (${erasedIdHash('recipient')}, ${erasedIdHash('actor')}))`,
  withholds: (world, n) => world.erasedUsers.includes(n.recipientId) || world.erasedUsers.includes(n.actorId),
};
