import { notFound } from '@recipes/contracts';
import type { UserDirectory } from '@recipes/directory';

/** 404 unless the user exists; one registered a moment ago is asked of the users service. */
export async function requireUser(users: UserDirectory, id: string): Promise<void> {
  if (!(await users.findById(id))) throw notFound('User not found');
}
