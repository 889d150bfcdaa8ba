import type { WithholdingRule } from './rule.js';

/** Nothing of a type the recipient turned off (docs/api.md §10.1); a type they never set is on. */
export const typeTurnedOff: WithholdingRule = {
  name: 'type_turned_off',
  sql: `EXISTS (SELECT 1 FROM notification_preferences p
                 WHERE p.recipient_id = recipient AND p.type = notification_type AND NOT p.enabled)`,
  withholds: (world, n) =>
    world.preferences.some((p) => p.recipientId === n.recipientId && p.type === n.type && !p.enabled),
};
