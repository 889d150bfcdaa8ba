import {
  AUTHOR_EXAMPLE,
  authorSchema,
  listCursor,
  listPaginationSchema,
  listQuery,
  timestampSchema,
} from '@recipes/contracts';
import { z } from 'zod';
import { type NotificationType, notificationTypes, targetTypes } from './repository/rows.js';

/** A group: the same type on the same content (docs/api.md §10.5), e.g. `tag_recipe:<recipe id>`. */
export const groupKeySchema = z
  .string()
  .regex(
    new RegExp(`^(${notificationTypes.join('|')}):[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$`),
    'must be a group key',
  );

export const notificationSchema = z
  .object({
    id: z.uuid(),
    type: z.enum(notificationTypes),
    groupKey: groupKeySchema,
    actor: authorSchema,
    contentType: z.enum(targetTypes),
    contentId: z.uuid(),
    /** The comment it comes from: absent, not null, on tags. */
    commentId: z.uuid().optional(),
    isRead: z.boolean(),
    createdAt: timestampSchema,
  })
  .meta({
    id: 'Notification',
    examples: [
      {
        id: '019375a5-2e3f-7a4b-8c5d-6e7f8a9b0c1d',
        type: 'mention_recipe_comment',
        groupKey: 'mention_recipe_comment:019375a2-9d8e-7f6a-8b5c-4d3e2f1a0b9c',
        actor: AUTHOR_EXAMPLE,
        contentType: 'recipe',
        contentId: '019375a2-9d8e-7f6a-8b5c-4d3e2f1a0b9c',
        commentId: '019375a3-1b2c-7d4e-8f90-a1b2c3d4e5f6',
        isRead: false,
        createdAt: '2026-11-22T10:00:00.000Z',
      },
    ],
  });

export const notificationListResponse = z.object({
  data: z.array(notificationSchema),
  pagination: listPaginationSchema,
});

/** Where a walk through the caller's notifications stands (docs/api.md §10.1). */
export const notificationCursor = listCursor('notifications');
/**
 * `types=a,b` (docs/api.md §10.2): one or more notification types, comma-separated or repeated; an
 * empty or unknown one is 400.
 */
const typesParam = z
  .union([z.string(), z.array(z.string())])
  .transform((value) => [value].flat().flatMap((list) => list.split(',')))
  .pipe(z.array(z.enum(notificationTypes)).min(1))
  .optional()
  .meta({
    description: 'Only these types, comma-separated',
    // What the enum above checks, for a client reading the document: known names, none empty.
    pattern: `^(?:${notificationTypes.join('|')})(?:,(?:${notificationTypes.join('|')}))*$`,
    example: 'mention_recipe_comment,tag_recipe',
  });

/** `unread=true` keeps only the unread, `false` or none keeps all, anything else is 400. */
const unreadParam = z
  .enum(['true', 'false'])
  .optional()
  .transform((value) => value === 'true')
  .meta({ description: 'Only the unread ones when `true`' });

export const notificationListQuery = listQuery(20, notificationCursor).extend({
  unread: unreadParam,
  types: typesParam,
});
export const unreadCountResponse = z.object({ count: z.number().int() });

export const markReadBody = z.object({ notificationIds: z.array(z.uuid()).min(1).max(100) });
/** Optional: without it, or without `upTo`, every unread notification is marked. */
export const markAllReadBody = z.object({ upTo: z.uuid().optional() }).optional();

/** `304 Not Modified`: no body, the client's copy is current. */
export const notModified = z.null().describe('Not Modified: the representation named by If-None-Match is current');

export const markReadResponse = z.object({ message: z.string(), updated: z.number().int() });

/** Every notification type, on or off (docs/api.md §10). */
export const preferencesResponse = z.object({
  types: z.object(
    Object.fromEntries(notificationTypes.map((type) => [type, z.boolean()])) as Record<NotificationType, z.ZodBoolean>,
  ),
});

/** Some types, each on or off: any other name, or a value that is not a boolean, is 400. */
export const preferencesBody = z.object({
  types: z.strictObject(
    Object.fromEntries(notificationTypes.map((type) => [type, z.boolean().optional()])) as Record<
      NotificationType,
      z.ZodOptional<z.ZodBoolean>
    >,
  ),
});

/** A group of the caller's notifications (docs/api.md §10.5). */
export const notificationGroupSchema = z
  .object({
    groupKey: groupKeySchema,
    type: z.enum(notificationTypes),
    contentType: z.enum(targetTypes),
    contentId: z.uuid(),
    count: z.number().int().describe('Its notifications, retracted ones left out'),
    unreadCount: z.number().int(),
    actors: z.array(authorSchema).max(3).describe('Up to three distinct actors, the most recent first'),
    actorCount: z.number().int().describe('Its distinct actors'),
    latestNotificationId: z.uuid(),
    latestAt: timestampSchema,
  })
  .meta({
    id: 'NotificationGroup',
    examples: [
      {
        groupKey: 'mention_recipe_comment:019375a2-9d8e-7f6a-8b5c-4d3e2f1a0b9c',
        type: 'mention_recipe_comment',
        contentType: 'recipe',
        contentId: '019375a2-9d8e-7f6a-8b5c-4d3e2f1a0b9c',
        count: 2,
        unreadCount: 1,
        actors: [AUTHOR_EXAMPLE],
        actorCount: 1,
        latestNotificationId: '019375a5-2e3f-7a4b-8c5d-6e7f8a9b0c1d',
        latestAt: '2026-11-22T10:00:00.000Z',
      },
    ],
  });

export const groupListResponse = z.object({
  groups: z.array(notificationGroupSchema),
  pagination: listPaginationSchema,
});

/** Where a walk through the caller's groups stands (docs/api.md §10.1): a group's latest time and its key. */
export const groupCursor = listCursor('notification-groups', groupKeySchema);
export const groupListQuery = listQuery(20, groupCursor).extend({
  unread: unreadParam.meta({ description: 'Only the groups with an unread notification when `true`' }),
});

/** Any string: one that names no group of the caller's is a 404, as a path id that is not well-formed. */
export const groupParams = z.object({
  groupKey: z.string().meta({ description: 'A group key, `<type>:<content id>`' }),
});
