import { authorSchema, httpUrlSchema, type ListCursor, listPaginationSchema, listQuery, userSnapshotSchema, usernameSchema } from '@recipes/contracts';
import { z } from 'zod';

const codePoints = (value: string) => [...value].length;

export const registrationBody = z.object({
  username: usernameSchema.refine((name) => name.toLowerCase() !== 'me', '"me" is reserved'),
  password: z
    .string()
    .refine((value) => codePoints(value) >= 8 && codePoints(value) <= 128, 'must be 8-128 characters')
    .meta({ minLength: 8, maxLength: 128, description: '8-128 characters' }),
  avatarUrl: httpUrlSchema.nullable().optional(),
});

export const loginBody = z.object({
  username: z.string().max(100),
  password: z.string().max(1024),
});

export const profileChangeBody = z.object({ avatarUrl: httpUrlSchema.nullable() });

export const sessionResponse = z.object({ user: authorSchema, token: z.string() });
export const userResponse = z.object({ user: authorSchema });

export const internalUserResponse = z.object({ user: userSnapshotSchema });
export const internalUsersResponse = z.object({ users: z.array(userSnapshotSchema) });

export const mutedResponse = z.object({ muted: z.boolean() });
export const blockedResponse = z.object({ blocked: z.boolean() });

/** The caller's mutes or blocks (docs/api.md §10): 20 a page unless asked otherwise, by page or by cursor. */
export const relatedUsersQuery = (cursor: ListCursor) => listQuery(20, cursor);
export const relatedUsersResponse = z.object({ users: z.array(authorSchema), pagination: listPaginationSchema });
