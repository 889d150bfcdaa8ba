import type { UserSnapshot } from '@recipes/contracts';
import { type ServiceHarness, serviceHarness } from '@recipes/testing/service';
import { stubCollectionsService, stubContentService, stubUsersService } from '@recipes/testing/stubs';
import type { CommentsConfig } from '../src/config.js';
import { type CommentsParts, commentsService } from '../src/service.js';

export { bearer, expectProblem } from '@recipes/testing/service';

export interface CommentsHarness extends ServiceHarness<CommentsConfig, CommentsParts> {
  /** The owners of what comments are about, as this service's look-ups reach them. */
  owners: {
    users: Awaited<ReturnType<typeof stubUsersService>>;
    content: Awaited<ReturnType<typeof stubContentService>>;
    collections: Awaited<ReturnType<typeof stubCollectionsService>>;
  };
  /** A user registered a moment ago (this service has not heard of them), and a token of theirs. */
  register(username: string): { user: UserSnapshot; token: string };
}

/** The comments service on a fresh database of its own, with the users, content and collections services stood in for. */
export async function commentsHarness(env: Record<string, string> = {}): Promise<CommentsHarness> {
  const owners = { users: await stubUsersService(), content: await stubContentService(), collections: await stubCollectionsService() };
  const harness = await serviceHarness(commentsService, {
    env: {
      USERS_INTERNAL_URL: owners.users.url,
      CONTENT_INTERNAL_URL: owners.content.url,
      COLLECTIONS_INTERNAL_URL: owners.collections.url,
      ...env,
    },
    neighbours: Object.values(owners),
  });
  return {
    ...harness,
    owners,
    register(username) {
      const user = owners.users.register(username);
      return { user, token: harness.tokenFor(user) };
    },
  };
}
