import {
  type Author,
  type commentMentionCreated,
  type EventData,
  type EventEnvelope,
  createEvent,
  newId,
  notFound,
  notificationCreated,
  notificationRetracted,
  notificationsRead,
  type ListPosition,
  type ListRequest,
  type userTagged,
} from '@recipes/contracts';
import { type Pool, type Queryable, withTransaction, writeInBatches } from '@recipes/db';
import type { UserDirectory } from '@recipes/directory';
import type { Logger } from '@recipes/logging';
import type { Prompts } from '@recipes/runtime';
import { enqueue, handleOnce } from '@recipes/outbox';
import * as repository from './repository/notifications.js';
import * as reads from './repository/reads.js';
import * as retractions from './repository/retractions.js';
import type { Marked } from './repository/reads.js';
import { hasOpenStream } from './repository/streams.js';
import type { NewNotification, NotificationRecord, NotificationType, TargetType } from './repository/rows.js';

/**
 * A notification as its recipient sees it (docs/api.md §7): `commentId` only on mentions; its group
 * (docs/api.md §10.5).
 */
export interface Notification {
  id: string;
  type: NotificationType;
  groupKey: string;
  actor: Author;
  contentType: TargetType;
  contentId: string;
  commentId?: string;
  isRead: boolean;
  createdAt: string;
}

/** A page of a listing: its notifications, how many the listing holds, and where the next page starts. */
export type NotificationPage = { data: Notification[]; total: number; next: ListPosition | null };

/** The notification a mention causes; none when the author mentioned themself. */
export function fromMention(mention: EventData<typeof commentMentionCreated>): NewNotification | undefined {
  if (mention.mentionedUserId === mention.actorId) return undefined;
  return {
    recipientId: mention.mentionedUserId,
    type: `mention_${mention.kind}`,
    actorId: mention.actorId,
    contentType: mention.targetType,
    contentId: mention.targetId,
    commentId: mention.commentId,
    createdAt: mention.createdAt,
  };
}

/** The notification a tag causes; none when the author tagged themself. */
export function fromTag(tag: EventData<typeof userTagged>): NewNotification | undefined {
  if (tag.taggedUserId === tag.actorId) return undefined;
  return {
    recipientId: tag.taggedUserId,
    type: `tag_${tag.contentType}`,
    actorId: tag.actorId,
    contentType: tag.contentType,
    contentId: tag.contentId,
    commentId: null,
    createdAt: tag.createdAt,
  };
}

export function toNotification(record: NotificationRecord, actor: Author): Notification {
  return {
    id: record.id,
    type: record.type,
    groupKey: record.groupKey,
    actor,
    contentType: record.contentType,
    contentId: record.contentId,
    ...(record.commentId === null ? {} : { commentId: record.commentId }),
    isRead: record.isRead,
    createdAt: record.createdAt.toISOString(),
  };
}

const PRODUCER = 'notifications';

/**
 * Tells every instance's streams that the recipient's unread count changed (docs/api.md §9); nothing
 * when nothing did, or when no stream of theirs is open (the recipient's lock, taken before the change,
 * orders this against a stream opening: see `openStream`).
 */
export async function announceRead(
  tx: Queryable,
  recipientId: string,
  { updated, unread }: Marked,
  correlationId: string,
): Promise<void> {
  if (updated === 0 || unread === undefined || !(await hasOpenStream(tx, recipientId))) return;
  await enqueue(
    tx,
    createEvent(
      notificationsRead,
      { recipientId, updated, unreadCount: unread },
      { producer: PRODUCER, correlationId },
    ),
  );
}

/**
 * Tells every instance's streams of each notification `retracted` took back (docs/api.md §9), in the
 * transaction that retracted them, under the recipient's lock; nothing when no stream of theirs is open.
 */
export async function announceRetracted(
  tx: Queryable,
  recipientId: string,
  retracted: retractions.Retracted | undefined,
  correlationId: string,
): Promise<void> {
  if (!retracted?.streamOpen) return;
  for (const { id, sequence } of retracted.retractions) {
    await enqueue(
      tx,
      createEvent(
        notificationRetracted,
        { id, recipientId, sequence, unreadCount: retracted.unread },
        { producer: PRODUCER, correlationId },
      ),
    );
  }
}

/** The notifications domain: rows made once per event, read and marked only by their recipient. */
export function notifications(pool: Pool, directory: UserDirectory, prompts: Prompts) {
  const prompt = (data: EventData<typeof notificationCreated>, correlationId: string) =>
    prompts.send(createEvent(notificationCreated, data, { producer: PRODUCER, correlationId }));

  /**
   * Stores notifications (`insertNotifications`), those that come while others are being stored together: under
   * load, one round trip and one commit store many.
   */
  const store = writeInBatches((batch: readonly repository.NotificationToStore[]) =>
    repository.insertNotifications(pool, batch),
  );

  /** `event` came again: what it stored, if still there, is prompted again while a stream of its recipient is open. */
  async function promptAgain(event: EventEnvelope): Promise<void> {
    const stored = await repository.findStoredFrom(pool, event.id);
    if (stored?.streamOpen) await prompt(stored.data, event.correlationId);
  }

  return {
    /**
     * Stores `notification` once however often `event` is delivered, in one statement, atomic by itself, with the
     * others that came meanwhile (`store`; see `insertNotifications`), then prompts every instance's streams of the
     * recipient, if one is open (`notification.created`, straight to the broker: see `Prompts`). The event is acked
     * only after the prompt went, so one that comes again prompts again what it stored, in case the prompt had not
     * gone.
     */
    async record(event: EventEnvelope, notification: NewNotification | undefined): Promise<void> {
      if (!notification) return;
      const id = newId();
      const stored = await store({ id, source: event, notification });
      if (stored === undefined) return promptAgain(event);
      if ('withheldBy' in stored || !stored.streamOpen) return;
      const { sequence, unread: unreadCount } = stored;
      await prompt({ id, ...notification, sequence, unreadCount }, event.correlationId);
    },

    /**
     * Retracts the notification of a mention taken back, once however often `event` is delivered, and
     * announces it to the recipient's open streams, if any.
     */
    async retract(event: EventEnvelope, mention: NewNotification | undefined, retractedAt: string): Promise<void> {
      if (!mention || mention.commentId === null) return;
      await handleOnce(pool, event, async (tx) => {
        await repository.lockCommentNotifications(tx, mention.recipientId, mention.commentId!);
        const retracted = await retractions.retractMention(tx, newId(), event.id, mention, retractedAt);
        await announceRetracted(tx, mention.recipientId, retracted, event.correlationId);
      });
    },

    /**
     * `content` was deleted: every notification about it (its tags, the mentions in its comments) is
     * retracted and announced, and none is stored about it from now on; once however often `event` is
     * delivered, and whichever comes first, the deletion or what it retracts.
     */
    async retractAbout(event: EventEnvelope, content: retractions.ContentRef, retractedAt: string): Promise<void> {
      await handleOnce(pool, event, async (tx) => {
        const retracted = await retractions.retractAboutContent(tx, content, retractedAt);
        for (const [recipientId, done] of retracted)
          await announceRetracted(tx, recipientId, done, event.correlationId);
      });
    },

    /**
     * Those `filter` keeps, newest first, by page or after a position. Actors come from the users read
     * model now, so they show their current avatar.
     */
    async list(
      recipientId: string,
      filter: repository.ListingFilter,
      request: ListRequest,
      log: Pick<Logger, 'warn'>,
    ): Promise<NotificationPage> {
      const { rows: records, total, next } = await repository.findPage(pool, recipientId, filter, request);
      // An actor the events have not brought yet (registered a moment ago) is asked of the users service.
      const actors = await directory.findByIds([...new Set(records.map((record) => record.actorId))]);
      const data = records.flatMap((record) => {
        const actor = actors.get(record.actorId);
        if (actor)
          return [toNotification(record, { id: actor.id, username: actor.username, avatarUrl: actor.avatarUrl })];
        // Only a forged or corrupted event names a user the users service does not know.
        log.warn({ notificationId: record.id, actorId: record.actorId }, 'notification of an unknown actor left out');
        return [];
      });
      return { data, total, next };
    },

    async unreadCount(recipientId: string): Promise<number> {
      return (await repository.findCounts(pool, recipientId)).unread;
    },

    /** What the recipient's ETag is made of: it changes whenever their listing or unread count would. */
    version: (recipientId: string): Promise<number> => repository.findVersion(pool, recipientId),

    /** How many of `ids` were the recipient's and unread; other users' ids change and reveal nothing. */
    async markRead(recipientId: string, ids: string[], correlationId: string): Promise<number> {
      return withTransaction(pool, async (tx) => {
        await repository.lockRecipient(tx, recipientId);
        const marked = await reads.markRead(tx, recipientId, ids);
        await announceRead(tx, recipientId, marked, correlationId);
        return marked.updated;
      });
    },

    /**
     * Marks read every unread notification of the recipient, or those created at or before their notification `upTo`.
     */
    async markAllRead(recipientId: string, upTo: string | undefined, correlationId: string): Promise<number> {
      return withTransaction(pool, async (tx) => {
        await repository.lockRecipient(tx, recipientId);
        const place = upTo === undefined ? undefined : await reads.findListingPlace(tx, recipientId, upTo);
        if (upTo !== undefined && !place) throw notFound('Notification not found');
        const marked = await reads.markAllRead(tx, recipientId, place);
        await announceRead(tx, recipientId, marked, correlationId);
        return marked.updated;
      });
    },
  };
}

export type Notifications = ReturnType<typeof notifications>;
