import { isUuid, usernameSchema, type UserSnapshot } from '@recipes/contracts';
import type { UserDirectory } from '@recipes/directory';

export const isUsername = (value: string) => usernameSchema.safeParse(value).success;

/** The user a path names, by UUID or by username in any case; anything else names nobody. */
export async function findUser(directory: UserDirectory, idOrUsername: string): Promise<UserSnapshot | undefined> {
  if (isUuid(idOrUsername)) return directory.findById(idOrUsername);
  if (isUsername(idOrUsername)) return directory.findByUsername(idOrUsername);
  return undefined;
}
