import type { UserDirectory } from '@recipes/directory';
import { notFound, unauthorized } from '@recipes/http';

/** 404 unless the user exists; one registered a moment ago is asked of the users service. */
export async function requireUser(users: UserDirectory, id: string): Promise<void> {
  if (!(await users.findById(id))) throw notFound('User not found');
}

/** A well-signed token of an account the users service does not know proves nothing: 401. */
export async function requireCaller(users: UserDirectory, id: string): Promise<void> {
  if (!(await users.findById(id))) throw unauthorized('The token is invalid or expired');
}
