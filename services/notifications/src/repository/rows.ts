import { type NotificationType, notificationTypeSchema } from '@recipes/contracts';

export type { NotificationType };

/** The kinds of notification the table holds (its CHECK constraint, migrations/001_notifications.sql). */
export const notificationTypes = notificationTypeSchema.options;

/** What a notification can be about. */
export const targetTypes = ['recipe', 'collection', 'post'] as const;
export type TargetType = (typeof targetTypes)[number];

/** What a mention or a tag tells one user: a row of `notifications` before it is stored. */
export interface NewNotification {
  recipientId: string;
  type: NotificationType;
  actorId: string;
  contentType: TargetType;
  contentId: string;
  /** The comment it comes from (a mention, a reply, a comment on the recipient's content); null for a tag. */
  commentId: string | null;
  createdAt: string;
}

/** A row of `notifications`, as the domain sees it. */
export interface NotificationRecord {
  id: string;
  type: NotificationType;
  /** Its group, the same type on the same content (migrations/009_filters_and_groups.sql). */
  groupKey: string;
  actorId: string;
  contentType: TargetType;
  contentId: string;
  commentId: string | null;
  isRead: boolean;
  createdAt: Date;
}
