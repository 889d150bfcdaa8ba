import {
  createEvent,
  DomainError,
  type ErasingService,
  NOBODY,
  type EventEnvelope,
  type UserDeleted,
  userDeleted,
  userErasedEvents,
} from '@recipes/contracts';
import type { Pool, Queryable } from '@recipes/db';
import { forgetLimitCounts, type SharedStoreSlot } from '@recipes/http';
import type { Logger } from '@recipes/logging';
import { type EventHandler, on } from '@recipes/messaging';
import { enqueue, handleOnce } from '@recipes/outbox';

/** How many rows one step of an erasure takes on in one transaction: a large account is erased in many small ones. */
export const ERASURE_BATCH = 200;

/**
 * One kind of thing a service erases of a deleted user: it erases at most `limit` of them, each in a
 * transaction of its own or all in one, and gives how many it took on. Fewer than `limit` means none are
 * left; so a step run again (a redelivered `user.deleted`, after a crash half-way) goes on where it stopped.
 */
export type ErasureStep = (userId: string, limit: number, correlationId: string) => Promise<number>;

/** A step that deletes, batch by batch, the rows of `table` whose `column` is the user. */
export function deleteRowsOf(pool: Pool, table: string, column: string): ErasureStep {
  return async (userId, limit) => {
    const { rowCount } = await pool.query(
      `DELETE FROM ${table} WHERE ctid = ANY(ARRAY(SELECT ctid FROM ${table} WHERE ${column} = $1 LIMIT $2))`,
      [userId, limit],
    );
    return rowCount ?? 0;
  };
}

/**
 * A step that deletes what the limits `names` counted under the user's id in the shared store (`slot`, e.g. a limit of
 * comments per caller): nothing of them stays in Redis either. Takes on no rows, so it runs once a pass; without a
 * store (each instance counting in its memory, which forgets within a window) it does nothing. While the store is
 * away it fails as `unavailable`, and the erasure waits for it.
 */
export function forgetCountsIn(slot: SharedStoreSlot, names: readonly string[]): ErasureStep {
  return async (userId) => {
    if (slot.current) await forgetLimitCounts(slot.current, names, userId);
    return 0;
  };
}

/** The directories' copies of others' things: the column naming the owner, and what else says whose they were. */
const DIRECTORY_ITEMS = {
  content_items: { owner: 'author_id', cleared: "title = '', cover_image_url = NULL" },
  known_collections: { owner: 'owner_id', cleared: "name = ''" },
} as const;

/**
 * A step that marks the user's items in a directory of others' things deleted, with no owner and no title,
 * name or cover (their own words could name them), as their deletion event will when it comes: what hangs
 * on them here goes at once (their triggers), and nothing waits on the owner's service to name the user.
 */
export function retireItemsOf(pool: Pool, table: keyof typeof DIRECTORY_ITEMS): ErasureStep {
  const { owner, cleared } = DIRECTORY_ITEMS[table];
  return async (userId, limit) => {
    const { rowCount } = await pool.query(
      `UPDATE ${table} SET deleted = true, ${owner} = $3, ${cleared}
        WHERE ctid = ANY(ARRAY(SELECT ctid FROM ${table} WHERE ${owner} = $1 LIMIT $2))`,
      [userId, limit, NOBODY],
    );
    return rowCount ?? 0;
  };
}

/**
 * The ends of the user's sessions stay (their tokens are refused until they expire) but no longer say
 * whose they were; what a per-user not-before kept goes with them, as the deletion's own ends name every
 * session. In one transaction, so the table never holds the user's id next to an end learnt from the event.
 */
async function keepSessionEndsWithoutOwner(
  db: Queryable,
  { userId, sessionIds, tokensExpireBy }: UserDeleted,
): Promise<void> {
  await db.query(
    `INSERT INTO ended_sessions (session_id, user_id, forget_after, reason) SELECT id, $2, $3, 'account_deleted' FROM unnest($1::uuid[]) AS id
     ON CONFLICT (session_id) DO UPDATE SET user_id = $2, forget_after = greatest(ended_sessions.forget_after, EXCLUDED.forget_after),
                                            reason = EXCLUDED.reason`,
    [sessionIds, NOBODY, tokensExpireBy],
  );
  await db.query('UPDATE ended_sessions SET user_id = $2 WHERE user_id = $1', [userId, NOBODY]);
  await db.query('DELETE FROM sessions_not_before WHERE user_id = $1', [userId]);
}

/**
 * The SQL of the hash an erased user is remembered by (migrations `erased_users` of each erasing service), of the
 * SQL expression `id`.
 */
export const erasedIdHash = (id: string) => `sha256(convert_to(${id}::text, 'UTF8'))`;

/**
 * Who an event that would store something about users names: an event of one of these types that names
 * an erased user is dropped. Deletions are not listed: they only ever take away.
 */
type Named = Record<string, string>;
const namedUsers: Record<string, (data: Named) => Array<string | undefined>> = {
  'user.created': (d) => [d.id],
  'user.updated': (d) => [d.id],
  'user.muted': (d) => [d.userId, d.targetId],
  'user.unmuted': (d) => [d.userId, d.targetId],
  'user.blocked': (d) => [d.userId, d.targetId],
  'user.unblocked': (d) => [d.userId, d.targetId],
  'recipe.created': (d) => [d.authorId],
  'recipe.updated': (d) => [d.authorId],
  'post.created': (d) => [d.authorId],
  'collection.created': (d) => [d.ownerId],
  'comment.created': (d) => [d.authorId],
  'comment.updated': (d) => [d.authorId],
  'comment.mention.created': (d) => [d.actorId, d.mentionedUserId],
  'comment.mention.deleted': (d) => [d.actorId, d.mentionedUserId],
  'content.user.tagged': (d) => [d.actorId, d.taggedUserId],
};

/** Whether any of `ids` is a user erased from this schema. */
async function anyErased(db: Queryable, ids: string[]): Promise<boolean> {
  if (ids.length === 0) return false;
  const { rows } = await db.query(
    `SELECT 1 FROM erased_users WHERE id_hash IN (SELECT ${erasedIdHash('id')} FROM unnest($1::text[]) AS id) LIMIT 1`,
    [ids],
  );
  return rows.length > 0;
}

const CHECKS_ERASED = Symbol('checks erased users itself');

/**
 * Marks a handler that needs no check before it, so that `droppingErased` spends no round trip of its own on it:
 * one that drops what an event says of an erased user itself, in the statement that would store it (e.g. a rule
 * of the notifications service), or one that stores nothing of the user (e.g. a count by comment id).
 */
export const checkingErasedItself = (handler: EventHandler): EventHandler =>
  Object.assign({ [CHECKS_ERASED]: true }, handler);

/**
 * Wraps a service's handlers so that an event about an erased user, come late, stores nothing of them
 * (its erasure is over, and would not see it). Every other event passes as it is, as does one whose handler
 * checks itself (`checkingErasedItself`).
 */
export function droppingErased(pool: Pool, handlers: EventHandler[]): EventHandler[] {
  return handlers.map((handler) => {
    const named = namedUsers[handler.definition.type];
    if (!named || CHECKS_ERASED in handler) return handler;
    return {
      definition: handler.definition,
      async handle(event, log) {
        const ids = named(event.data as Named).filter((id): id is string => typeof id === 'string');
        if (await anyErased(pool, ids)) {
          log.info({ eventType: event.type }, 'event about an erased user dropped');
          return;
        }
        await handler.handle(event, log);
      },
    };
  });
}

export interface ErasureSettings {
  pool: Pool;
  service: ErasingService;
  /** What the service erases, in order: its domain's own deletion paths first, then what they leave. */
  steps: readonly ErasureStep[];
  batch?: number;
}

/**
 * Erases what `service` holds of a user whose account was deleted (docs/api.md §11.2), then confirms with
 * `<service>.user.erased`. Every service holds idempotency records and session ends of its callers; the
 * service's own steps come first. The steps run in small transactions and each finds what is left, so a
 * redelivery after a crash finishes the work; the confirmation goes out once, in the inbox's transaction.
 */
export async function eraseUser(
  { pool, service, steps, batch = ERASURE_BATCH }: ErasureSettings,
  deleted: UserDeleted,
  event: EventEnvelope,
  log: Logger,
) {
  // From here on, what comes late about them is dropped (`droppingErased`); then what came before goes.
  await pool.query(`INSERT INTO erased_users (id_hash) VALUES (${erasedIdHash('$1')}) ON CONFLICT DO NOTHING`, [
    deleted.userId,
  ]);
  const everyService: ErasureStep[] = [deleteRowsOf(pool, 'idempotency_keys', 'caller_id')];
  let erased = 0;
  // Twice: a handler that began before the user was marked erased may have committed during the first pass.
  for (const _pass of [1, 2]) {
    for (const step of [...steps, ...everyService]) {
      for (;;) {
        const done = await step(deleted.userId, batch, event.correlationId);
        erased += done;
        if (done < batch) break;
      }
    }
  }
  await handleOnce(pool, event, async (tx) => {
    await keepSessionEndsWithoutOwner(tx, deleted);
    const confirmation = { userId: deleted.userId, service, erasedAt: new Date().toISOString() };
    await enqueue(
      tx,
      createEvent(userErasedEvents[service], confirmation, { producer: service, correlationId: event.correlationId }),
    );
  });
  log.info({ erased }, 'erased a deleted user');
}

/** The handler of `user.deleted` for a service that erases with `settings`. */
export const userDeletedHandler = (settings: ErasureSettings): EventHandler =>
  on(userDeleted, (deleted, event, log) => eraseUser(settings, deleted, event, log));

/**
 * Runs `work` in a transaction for each of `ids` (an existing deletion path), giving how many there were. One
 * that its path finds gone (`not_found`) was taken away meanwhile, by a redelivery of the same deletion or by
 * another user's (a saved item of content they erased): what the erasure wanted, so it goes on. When its path
 * found every one gone, it gives 0, so that ids a path keeps finding gone cannot keep the step looping.
 */
export async function eachIn(ids: readonly string[], work: (id: string) => Promise<unknown>): Promise<number> {
  let taken = 0;
  for (const id of ids) {
    try {
      await work(id);
      taken += 1;
    } catch (error) {
      if (!(error instanceof DomainError && error.kind === 'not_found')) throw error;
    }
  }
  return taken === 0 ? 0 : ids.length;
}

/** The ids `sql` selects for the user (`$1`) up to the limit (`$2`). */
export async function idsOf(db: Queryable, sql: string, userId: string, limit: number): Promise<string[]> {
  const { rows } = await db.query<{ id: string }>(sql, [userId, limit]);
  return rows.map((row) => row.id);
}
