import { type UserSnapshot, usernameSchema } from '@recipes/contracts';
import type { UserDirectory } from '@recipes/directory';
import { z } from 'zod';

const uuid = z.uuid();

export const isUsername = (value: string) => usernameSchema.safeParse(value).success;

/** The user a path names, by UUID or by username in any case; anything else names nobody. */
export async function findUser(directory: UserDirectory, idOrUsername: string): Promise<UserSnapshot | undefined> {
  if (uuid.safeParse(idOrUsername).success) return directory.findById(idOrUsername);
  if (isUsername(idOrUsername)) return directory.findByUsername(idOrUsername);
  return undefined;
}
