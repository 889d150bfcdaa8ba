import type { WithholdingRule } from './rule.js';

/**
 * One event stores its notification once. The inbox row (`processed_events`) stops a redelivery before any rule
 * runs; this stops one that comes after the inbox row was lost (deleted by hand, or restored from a backup), and
 * the unique `source_event_id` stands behind it.
 */
export const oncePerEvent: WithholdingRule = {
  name: 'event_stored_before',
  sql: 'EXISTS (SELECT 1 FROM notifications n WHERE n.source_event_id = source_id)',
  withholds: (world, n) => world.notifications.some((d) => d.sourceEventId === n.sourceEventId),
};
