import { deletedComment } from './deleted-comment.js';
import { deletedContent } from './deleted-content.js';
import { erasedUser } from './erased-user.js';
import { oncePerComment } from './once-per-comment.js';
import { oncePerEvent } from './once-per-event.js';
import type { Candidate, World, WithholdingRule } from './rule.js';
import { silencedActor } from './silenced-actor.js';
import { typeTurnedOff } from './type-turned-off.js';

export type { Candidate, World, WithholdingRule } from './rule.js';

/**
 * Who gets notified: every rule, one file each. Before a notification is made, an event says who it is for:
 * never the actor themself (`fromMention`, `fromTag` in src/notifications.ts), and one comment tells a user once,
 * a mention before a reply before a comment on their content (`fromComment`, src/conversations.ts). Then these
 * rules, in this order, withhold it as it is stored (`store_notifications`, rendered from them by
 * src/rules/store-function.ts); the first that holds is the one `store_notifications` names.
 */
export const withholdingRules: readonly WithholdingRule[] = [
  oncePerEvent,
  erasedUser,
  deletedContent,
  deletedComment,
  silencedActor,
  typeTurnedOff,
  oncePerComment,
];

/** The rule that withholds `notification` in `world`, if any: what `store_notifications` answers as `withheld_by`. */
export function whyWithheld(world: World, notification: Candidate): string | undefined {
  return withholdingRules.find((rule) => rule.withholds(world, notification))?.name;
}
