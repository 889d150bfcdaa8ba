import type { Budget, BudgetSpending } from '@recipes/db';

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
 * Pays for the notifications a change causes, from the author's `budget`, in the statement or transaction
 * that makes the change; `answer` says where the budget stands, or refuses the request (429) when the
 * spending was refused, and with it the change.
 */
export interface NotificationPayer {
  budget: Budget;
  answer(spending: BudgetSpending): void;
}

/**
 * Of `found` (users a text mentions, in order): those in `before` (the users the comment has ever
 * mentioned), and others while `before` and they make ten users at most, the first ones. So however it is
 * edited, a comment mentions, and notifies, at most ten users in its life.
 */
export function withinCap(found: string[], before: ReadonlySet<string>): string[] {
  let room = MAX_MENTIONED_USERS - before.size;
  return found.filter((id) => before.has(id) || room-- > 0);
}

/** A user a comment names: whether they block its author, whom they may then not be mentioned by. */
export interface MentionedUser {
  id: string;
  blocksAuthor: boolean;
}

/** What is known of a name a comment mentions: its user, or null when nobody has it. */
export type Named = MentionedUser | null;

/**
 * The ids of the users `names` (in text order) mention, by what is known of each name (`named`), as
 * `withinCap` keeps them: never the author, nor one who blocks them. And the names not known yet that
 * come before the list is full, which could still change it: none once it is final.
 */
export function mentionable(
  names: string[],
  named: ReadonlyMap<string, Named>,
  authorId: string,
  before: ReadonlySet<string>,
): { ids: string[]; unknown: string[] } {
  const ids: string[] = [];
  const unknown: string[] = [];
  let room = MAX_MENTIONED_USERS - before.size;
  for (const name of names) {
    if (ids.length === MAX_MENTIONED_USERS) break;
    const user = named.get(name);
    if (user === undefined) unknown.push(name);
    else if (user !== null && user.id !== authorId && !user.blocksAuthor && (before.has(user.id) || room-- > 0))
      ids.push(user.id);
  }
  return { ids, unknown };
}
