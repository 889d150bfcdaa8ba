import type { NewNotification, TargetType } from '../repository/rows.js';

/**
 * What the tables a rule reads hold, as plain values: the world a rule is tested against without a database,
 * and the one the property test writes into a database to check that both halves of each rule agree.
 */
export interface World {
  /** `deleted_content`: recipes, posts and collections this service learnt are deleted. */
  deletedContent: { type: TargetType; id: string }[];
  /** `deleted_comments`: comments this service learnt are deleted. */
  deletedComments: string[];
  /** `user_relations`: what `userId` has set about `targetId` (a mute, a block, when a block last ended). */
  relations: { userId: string; targetId: string; muted: boolean; blocked: boolean; lastUnblockedAt: string | null }[];
  /** `notification_preferences`: a type a recipient turned on or off (none: on). */
  preferences: { recipientId: string; type: string; enabled: boolean }[];
  /** `erased_users`: deleted accounts erased from this schema (by the hash of their id). */
  erasedUsers: string[];
  /** `notifications`: those stored already (retracted since or not), by recipient, comment and source event. */
  notifications: { recipientId: string; commentId: string | null; sourceEventId: string }[];
}

/** A notification about to be stored, and the id of the event it comes from. */
export type Candidate = NewNotification & { sourceEventId: string };

/**
 * One reason a notification is not stored. `sql` and `withholds` say the same thing twice: `sql` is what the
 * database runs (a condition over what `store_notifications` knows of a notification, rendered by
 * src/rules/store-function.ts, under the locks that make it true at the commit), `withholds` is the same condition
 * in TypeScript, for tests and for reading; test/rules.properties.test.ts checks that they agree over random worlds.
 */
export interface WithholdingRule {
  /** What `store_notifications` answers as `withheld_by` when this rule withholds a notification. */
  name: string;
  sql: string;
  withholds(world: World, notification: Candidate): boolean;
}
