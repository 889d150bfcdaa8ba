import { z } from 'zod';
import { commentTargetTypeSchema } from './comments.js';
import { defineEvent } from './envelope.js';

/**
 * What a notification is about (docs/api.md §7; replies and comments on the recipient's content: docs/api.md §11.4).
 */
export const notificationTypeSchema = z.enum([
  'mention_recipe_comment',
  'mention_collection_comment',
  'mention_post_comment',
  'tag_recipe',
  'tag_post',
  'reply_comment',
  'comment_recipe',
  'comment_post',
  'comment_collection',
]);
export type NotificationType = z.infer<typeof notificationTypeSchema>;

export const notificationCreated = defineEvent({
  type: 'notification.created',
  version: 1,
  data: z.object({
    id: z.uuid(),
    recipientId: z.uuid(),
    /** Its place among the recipient's notifications, in the order they were stored: where a stream resumes. */
    sequence: z.number().int().positive(),
    type: notificationTypeSchema,
    actorId: z.uuid(),
    contentType: commentTargetTypeSchema,
    contentId: z.uuid(),
    /** The comment of a mention, a reply or a comment on the recipient's content; null for a tag. */
    commentId: z.uuid().nullable(),
    createdAt: z.iso.datetime(),
    /** The recipient's unread count once this one is stored. */
    unreadCount: z.number().int().nonnegative(),
  }),
  producer: 'notifications',
  consumers: [],
  description:
    'A user with a notification stream open has a new notification (for a user with none, nothing is published: a stream reads what it missed from ' +
    'the table). Each notifications instance hears it on a queue of its own and sends it to the streams of that user it holds (docs/api.md §9).',
});

export const notificationsRead = defineEvent({
  type: 'notifications.read',
  version: 1,
  data: z.object({
    recipientId: z.uuid(),
    /** How many notifications this marked read. */
    updated: z.number().int().positive(),
    unreadCount: z.number().int().nonnegative(),
  }),
  producer: 'notifications',
  consumers: [],
  description:
    'A user with a notification stream open marked notifications read. Each notifications instance sends the new unread count to that user’s streams it holds.',
});

export const notificationRetracted = defineEvent({
  type: 'notification.retracted',
  version: 1,
  data: z.object({
    /** The notification taken back: its mention was edited away or deleted, or what it was about was deleted. */
    id: z.uuid(),
    recipientId: z.uuid(),
    /** The retraction's own place in the recipient's sequence, after every notification stored before it. */
    sequence: z.number().int().positive(),
    /** The recipient's unread count once it is retracted. */
    unreadCount: z.number().int().nonnegative(),
  }),
  producer: 'notifications',
  consumers: [],
  description:
    'A notification of a user with a notification stream open was retracted. Each notifications instance ' +
    'has that user’s streams it holds send `event: retracted` and the new unread count (docs/api.md §9).',
});

export const notificationsStreamsReplaced = defineEvent({
  type: 'notifications.streams.replaced',
  version: 1,
  data: z.object({
    recipientId: z.uuid(),
    /**
     * The user's oldest open streams, beyond the five allowed: whichever instance holds one ends it with `event:
     * replaced`.
     */
    streamIds: z.array(z.uuid()).min(1),
  }),
  producer: 'notifications',
  consumers: [],
  description: 'A user opened a sixth notification stream: the instance holding the oldest ends it (docs/api.md §9).',
});
