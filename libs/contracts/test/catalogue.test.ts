import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  assertDeclared,
  eventCatalogue,
  eventsConsumedBy,
  eventsProducedBy,
  UndeclaredEventError,
} from '../src/index.js';

const serviceExists = (name: string) => existsSync(new URL(`../../../services/${name}/src/server.ts`, import.meta.url));

describe('event catalogue', () => {
  it('names only services that exist, and never the gateway', () => {
    const named = new Set(eventCatalogue.flatMap((event) => [event.producer, ...event.consumers]));
    expect([...named].filter((name) => !serviceExists(name) || name === 'gateway')).toEqual([]);
  });

  it('never lists a producer as a consumer of its own event', () => {
    expect(
      eventCatalogue.filter((event) => event.consumers.includes(event.producer)).map((event) => event.type),
    ).toEqual([]);
  });

  it('accepts an event from its declared producer', () => {
    expect(() => assertDeclared({ type: 'comment.created', version: 1, producer: 'comments' })).not.toThrow();
  });

  it('refuses a type or version it does not list, and a producer other than the declared one', () => {
    expect(() => assertDeclared({ type: 'comment.edited', version: 1, producer: 'comments' })).toThrow(
      UndeclaredEventError,
    );
    expect(() => assertDeclared({ type: 'comment.created', version: 2, producer: 'comments' })).toThrow(
      /version 2 is not in the event catalogue/,
    );
    expect(() => assertDeclared({ type: 'comment.created', version: 1, producer: 'content' })).toThrow(
      'event comment.created is produced by comments, not by content',
    );
  });

  it('answers what a service produces and consumes', () => {
    expect(eventsProducedBy('comments').map((event) => event.type)).toEqual([
      'comment.created',
      'comment.updated',
      'comment.deleted',
      'comment.mention.created',
      'comment.mention.deleted',
      'comments.user.erased',
    ]);
    expect(eventsConsumedBy('notifications').map((event) => event.type)).toEqual([
      'user.created',
      'user.updated',
      'user.muted',
      'user.unmuted',
      'user.blocked',
      'user.unblocked',
      'user.session.ended',
      'user.deleted',
      'recipe.deleted',
      'post.deleted',
      'content.user.tagged',
      'comment.created',
      'comment.deleted',
      'comment.mention.created',
      'comment.mention.deleted',
      'collection.deleted',
    ]);
    expect(eventsConsumedBy('users').map((event) => event.type)).toEqual([
      'content.user.erased',
      'comments.user.erased',
      'collections.user.erased',
      'notifications.user.erased',
    ]);
  });
});
