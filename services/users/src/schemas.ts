import {
  authorSchema,
  httpUrlSchema,
  timestampSchema,
  type ListCursor,
  listPaginationSchema,
  listQuery,
  userSnapshotSchema,
  usernameSchema,
} from '@recipes/contracts';
import { z } from 'zod';

const codePoints = (value: string) => [...value].length;

const newPasswordSchema = z
  .string()
  .refine((value) => codePoints(value) >= 8 && codePoints(value) <= 128, 'must be 8-128 characters')
  .meta({ minLength: 8, maxLength: 128, description: '8-128 characters' });

export const registrationBody = z.object({
  username: usernameSchema.refine((name) => name.toLowerCase() !== 'me', '"me" is reserved'),
  password: newPasswordSchema,
  avatarUrl: httpUrlSchema.nullable().optional(),
});

export const loginBody = z.object({
  username: z.string().max(100),
  password: z.string().max(1024),
});

export const profileChangeBody = z.object({ avatarUrl: httpUrlSchema.nullable() });

/** A session's tokens (docs/api.md §11.1). */
const sessionTokens = {
  token: z.string().meta({ description: 'the access token (a JWT naming its session in `sid`)' }),
  refreshToken: z.string().meta({ description: 'opaque; works once, for `POST /api/auth/refresh`' }),
  expiresIn: z.number().int().positive().meta({ description: 'lifetime of `token` in seconds' }),
};

export const sessionResponse = z.object({ user: authorSchema, ...sessionTokens });
export const refreshBody = z.object({ refreshToken: z.string().min(1).max(512) });
export const refreshResponse = z.object(sessionTokens);
export const messageResponse = z.object({ message: z.string() });
export const sessionsResponse = z.object({
  sessions: z.array(
    z.object({
      id: z.uuid(),
      createdAt: timestampSchema,
      lastUsedAt: timestampSchema,
      userAgent: z.string().nullable(),
      current: z.boolean().meta({ description: 'the session of the token this request was made with' }),
    }),
  ),
});
export const passwordChangeBody = z.object({ currentPassword: z.string().max(1024), newPassword: newPasswordSchema });
export const userResponse = z.object({ user: authorSchema });

export const internalUserResponse = z.object({ user: userSnapshotSchema });
export const internalUsersResponse = z.object({ users: z.array(userSnapshotSchema) });

export const mutedResponse = z.object({ muted: z.boolean() });
export const blockedResponse = z.object({ blocked: z.boolean() });

/** The caller's mutes or blocks (docs/api.md §10): 20 a page unless asked otherwise, by page or by cursor. */
export const relatedUsersQuery = (cursor: ListCursor) => listQuery(20, cursor);
export const relatedUsersResponse = z.object({ users: z.array(authorSchema), pagination: listPaginationSchema });

export const accountDeletionBody = z.object({ password: z.string().max(1024) });

const exported = (what: string) => z.array(z.record(z.string(), z.unknown())).meta({ description: what });

/** A user's data export (docs/api.md §11.2): every part in the shape the API shows it. */
export const exportResponse = z.object({
  exportedAt: timestampSchema,
  user: authorSchema,
  recipes: exported('their recipes, as Recipe summaries (their own favorite and repost)'),
  posts: exported('their posts'),
  collections: exported('their collections'),
  savedItems: exported('their saved items'),
  comments: exported('their comments, each with `targetType` and `targetId`'),
  notifications: exported('their notifications, as their list shows them'),
  mutes: z.array(authorSchema),
  blocks: z.array(authorSchema),
  preferences: z.record(z.string(), z.boolean()).meta({ description: 'their notification preferences, by type' }),
  sessions: exported('their live sessions, as `GET /api/auth/sessions` shows them'),
  pushSubscriptions: exported('their push subscriptions'),
});
