import { authorSchema, httpUrlSchema, userSnapshotSchema, usernameSchema } from '@recipes/contracts';
import { z } from 'zod';

const codePoints = (value: string) => [...value].length;

export const registrationBody = z.object({
  username: usernameSchema.refine((name) => name.toLowerCase() !== 'me', '"me" is reserved'),
  password: z
    .string()
    .refine((value) => codePoints(value) >= 8 && codePoints(value) <= 128, 'must be 8-128 characters'),
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
