import type { Queryable } from '@recipes/db';

/**
 * `@name` as docs/api.md §5 defines a mention: the `@` at the start or after a character that is not
 * `[A-Za-z0-9_]`, a name of 3–30 of those characters, and none of them right after it. So
 * `bob@example.com` mentions nobody, while `é@ada` and `@adaé` both mention ada: only
 * `[A-Za-z0-9_]` counts as part of a word, whatever Unicode says.
 */
const MENTION = /(?<![A-Za-z0-9_])@([A-Za-z0-9_]{3,30})(?![A-Za-z0-9_])/g;

/** A comment mentions at most this many users: the first ones in the text who exist. */
export const MAX_MENTIONED_USERS = 10;

/**
 * The names `text` mentions, lower-cased (usernames are case-insensitive), each once, in the order
 * they first appear. All of them: which exist, and so which ten count, only the users' directory knows.
 */
export function mentionedNames(text: string): string[] {
  return [...new Set(Array.from(text.matchAll(MENTION), (match) => match[1]!.toLowerCase()))];
}

/**
 * Pays for the notifications a change causes: `count` users newly notified, from `actorId`'s budget, in
 * `db`, the transaction that makes the change. Throws, and so leaves nothing of the change, past the budget.
 */
export type SpendNotifications = (db: Queryable, actorId: string, count: number) => Promise<void>;

/**
 * Of `found` (users a text mentions, in order): those in `before` (the users the comment has ever
 * mentioned), and others while `before` and they make ten users at most, the first ones. So however it is
 * edited, a comment mentions, and notifies, at most ten users in its life.
 */
export function withinCap(found: string[], before: ReadonlySet<string>): string[] {
  let room = MAX_MENTIONED_USERS - before.size;
  return found.filter((id) => before.has(id) || room-- > 0);
}
