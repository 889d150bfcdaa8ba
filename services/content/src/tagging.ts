import {
  type ContentSnapshot,
  type ContentType,
  type EventEnvelope,
  type UserSnapshot,
  userTagged,
} from '@recipes/contracts';
import type { Queryable } from '@recipes/db';
import type { RelationDirectory, UserDirectory } from '@recipes/directory';
import { contentEvent } from './events/content-event.js';
import { isUsername } from './people.js';

/**
 * The users a list of names tags: those that exist, each once whatever the case, never the author, and
 * never a user who blocks the author (docs/api.md §10: their name is ignored as an unknown one is, and the
 * author is told nothing). A name that cannot be a username names nobody, and is not even looked up.
 */
export async function taggedUsers(
  directory: UserDirectory,
  relations: RelationDirectory,
  author: UserSnapshot,
  usernames: string[],
): Promise<UserSnapshot[]> {
  const names = usernames.filter(isUsername);
  if (names.length === 0) return [];
  const found = [...(await directory.findByUsernames(names)).values()].filter((user) => user.id !== author.id);
  const blockers = await relations.blockersOf(
    author.id,
    found.map((user) => user.id),
  );
  return found.filter((user) => !blockers.has(user.id));
}

/**
 * Pays for the notifications a change causes: `count` users newly notified, from `actorId`'s budget, in
 * `db`, the transaction that makes the change. Throws, and so leaves nothing of the change, past the budget.
 */
export type SpendNotifications = (db: Queryable, actorId: string, count: number) => Promise<void>;

/** One `content.user.tagged` per tagged user, with the author as the actor. */
export function tagEvents(
  contentType: ContentType,
  content: ContentSnapshot,
  tagged: UserSnapshot[],
  correlationId: string,
): EventEnvelope[] {
  return tagged.map((user) =>
    contentEvent(
      userTagged,
      {
        contentType,
        contentId: content.id,
        actorId: content.authorId,
        taggedUserId: user.id,
        createdAt: content.createdAt,
      },
      correlationId,
    ),
  );
}
