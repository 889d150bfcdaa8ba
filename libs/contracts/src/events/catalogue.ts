import { collectionCreated, collectionDeleted } from './collections.js';
import {
  commentCreated,
  commentDeleted,
  commentMentionCreated,
  commentMentionDeleted,
  commentUpdated,
} from './comments.js';
import { postCreated, postDeleted, recipeCreated, recipeDeleted, recipeUpdated, userTagged } from './content.js';
import type { EventDefinition, EventEnvelope } from './envelope.js';
import {
  collectionsUserErased,
  commentsUserErased,
  contentUserErased,
  notificationsUserErased,
  userDeleted,
} from './erasure.js';
import {
  notificationCreated,
  notificationRetracted,
  notificationsRead,
  notificationsStreamsReplaced,
} from './notifications.js';
import {
  userBlocked,
  userCreated,
  userMuted,
  userSessionEnded,
  userUnblocked,
  userUnmuted,
  userUpdated,
} from './users.js';

/**
 * Every event in the system, each naming the one service that produces it and the services that consume
 * it. A service may only publish or consume what is listed here: the outbox refuses to enqueue anything
 * else, and each service's tests compare its handlers with its consumers here.
 */
export const eventCatalogue: readonly EventDefinition[] = [
  userCreated,
  userUpdated,
  userMuted,
  userUnmuted,
  userBlocked,
  userUnblocked,
  userSessionEnded,
  userDeleted,
  recipeCreated,
  recipeUpdated,
  recipeDeleted,
  postCreated,
  postDeleted,
  userTagged,
  commentCreated,
  commentUpdated,
  commentDeleted,
  commentMentionCreated,
  commentMentionDeleted,
  collectionCreated,
  collectionDeleted,
  notificationCreated,
  notificationRetracted,
  notificationsRead,
  notificationsStreamsReplaced,
  contentUserErased,
  commentsUserErased,
  collectionsUserErased,
  notificationsUserErased,
];

/** Thrown when a service tries to publish an event the catalogue does not declare for it. */
export class UndeclaredEventError extends Error {
  override name = 'UndeclaredEventError';
}

/** The catalogue's entry for `type` at `version`, if any. */
export function declaredEvent(type: string, version: number): EventDefinition | undefined {
  return eventCatalogue.find((definition) => definition.type === type && definition.version === version);
}

/** Refuses an envelope whose type and version are not catalogued, or whose producer is not the declared one. */
export function assertDeclared(event: Pick<EventEnvelope, 'type' | 'version' | 'producer'>): void {
  const definition = declaredEvent(event.type, event.version);
  if (!definition)
    throw new UndeclaredEventError(`event ${event.type} version ${event.version} is not in the event catalogue`);
  if (definition.producer !== event.producer) {
    throw new UndeclaredEventError(
      `event ${event.type} is produced by ${definition.producer}, not by ${event.producer}`,
    );
  }
}

/** The events the catalogue lists `service` as producing. */
export function eventsProducedBy(service: string): EventDefinition[] {
  return eventCatalogue.filter((definition) => definition.producer === service);
}

/** The events the catalogue lists `service` as consuming. */
export function eventsConsumedBy(service: string): EventDefinition[] {
  return eventCatalogue.filter((definition) => definition.consumers.includes(service));
}
