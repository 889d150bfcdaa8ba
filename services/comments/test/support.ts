import {
  collectionDeleted,
  createEvent,
  type EventEnvelope,
  newId,
  postDeleted,
  recipeDeleted,
  type UserSnapshot,
} from '@recipes/contracts';
import { type ServiceHarness, serviceHarness } from '@recipes/testing/service';
import { stubCollectionsService, stubContentService, stubUsersService } from '@recipes/testing/stubs';
import type { CommentsConfig } from '../src/config.js';
import { type CommentsParts, commentsService } from '../src/service.js';

export { bearer, expectProblem } from '@recipes/testing/service';

/** A limit no test of the routes reaches, for the files that do not test it. */
export const generousLimits = { COMMENT_LIMIT_PER_MINUTE: '1000', NOTIFICATION_BUDGET_PER_HOUR: '100000' };

/** What comments are about, and where their mentions are stored. */
export const kinds = ['recipe', 'collection', 'post'] as const;
export type Kind = (typeof kinds)[number];
export const stores = {
  recipe: 'recipe_comment_mentions',
  collection: 'collection_comment_mentions',
  post: 'post_comment_mentions',
};

export const commentsUrl = (kind: Kind, id: string) => `/api/${kind}s/${id}/comments`;

const deletions = { recipe: recipeDeleted, post: postDeleted, collection: collectionDeleted } as const;

/** The deletion of the `kind` `id` of `ownerId`, as its owner service announces it: its comments go with it. */
export function targetDeletion(kind: Kind, id: string, ownerId: string = newId()): EventEnvelope {
  const snapshot = {
    id,
    authorId: ownerId,
    ownerId,
    title: 'Gone',
    name: 'Gone',
    coverImageUrl: null,
    deleted: true,
    revision: 1,
    createdAt: new Date().toISOString(),
  };
  return createEvent(deletions[kind] as typeof recipeDeleted, snapshot, {
    producer: kind === 'collection' ? 'collections' : 'content',
    correlationId: `deleted-${id}`,
  });
}

export interface CommentsHarness extends ServiceHarness<CommentsConfig, CommentsParts> {
  /** The owners of what comments are about, as this service's look-ups reach them. */
  owners: {
    users: Awaited<ReturnType<typeof stubUsersService>>;
    content: Awaited<ReturnType<typeof stubContentService>>;
    collections: Awaited<ReturnType<typeof stubCollectionsService>>;
  };
  /** A user registered a moment ago (this service has not heard of them), and a token of theirs. */
  register(username: string): { user: UserSnapshot; token: string };
  /**
   * The id of a target of `kind` its owner (`ownerId`, or anybody) created a moment ago: this service has not heard of
   * it yet.
   */
  target(kind: Kind, ownerId?: string): string;
  /** The events of `type` that the request `correlationId` wrote to the outbox, oldest first. */
  outboxEvents(correlationId: string, type: string): Promise<EventEnvelope<Record<string, unknown>>[]>;
  /** The rows a comment has in the mention store of `kind`, by id. */
  mentionRows(kind: Kind, commentId: string): Promise<{ id: string; mentioned_user_id: string; created_at: Date }[]>;
}

/**
 * The comments service on a fresh database of its own, with the users, content and collections services stood in for.
 */
export async function commentsHarness(env: Record<string, string> = {}): Promise<CommentsHarness> {
  const owners = {
    users: await stubUsersService(),
    content: await stubContentService(),
    collections: await stubCollectionsService(),
  };
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
    target: (kind, ownerId) =>
      (kind === 'collection' ? owners.collections.create(ownerId) : owners.content.publish(kind, ownerId)).id,
    async outboxEvents(correlationId, type) {
      const { rows } = await harness.pool.query<{ payload: EventEnvelope<Record<string, unknown>> }>(
        `SELECT payload FROM outbox WHERE type = $1 AND payload->>'correlationId' = $2 ORDER BY created_at, id`,
        [type, correlationId],
      );
      return rows.map((row) => row.payload);
    },
    async mentionRows(kind, commentId) {
      const { rows } = await harness.pool.query<{ id: string; mentioned_user_id: string; created_at: Date }>(
        `SELECT id, mentioned_user_id, created_at FROM ${stores[kind]} WHERE comment_id = $1 ORDER BY id`,
        [commentId],
      );
      return rows;
    },
  };
}
