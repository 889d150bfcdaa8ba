import { authorSchema, paginationSchema, timestampSchema } from '@recipes/contracts';
import { z } from 'zod';
import { notificationTypes, targetTypes } from './notifications.js';

export const notificationSchema = z.object({
  id: z.uuid(),
  type: z.enum(notificationTypes),
  actor: authorSchema,
  contentType: z.enum(targetTypes),
  contentId: z.uuid(),
  /** Absent, not null, on tags. */
  commentId: z.uuid().optional(),
  isRead: z.boolean(),
  createdAt: timestampSchema,
});

export const notificationListResponse = z.object({ data: z.array(notificationSchema), pagination: paginationSchema });
export const unreadCountResponse = z.object({ count: z.number().int() });

export const markReadBody = z.object({ notificationIds: z.array(z.uuid()).min(1).max(100) });
export const markReadResponse = z.object({ message: z.string(), updated: z.number().int() });
