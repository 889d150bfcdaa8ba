import { describe, expect, it } from 'vitest';
import { consumerQueuesOf } from '../src/queues.js';

describe('consumerQueuesOf', () => {
  it('names the queue of each consumer the catalogue lists for what a service publishes, with the types it takes', () => {
    expect(consumerQueuesOf('comments', 'x')).toEqual([
      { queue: 'x.content', bindings: ['comment.created', 'comment.deleted'] },
      {
        queue: 'x.notifications',
        bindings: ['comment.created', 'comment.deleted', 'comment.mention.created', 'comment.mention.deleted'],
      },
      { queue: 'x.users', bindings: ['comments.user.erased'] },
    ]);
    // Each consumer of the users service binds only the relations it keeps: blocks for comments and
    // content, mutes and blocks for notifications, none for collections; and every one the ends of sessions.
    const ofUsers = Object.fromEntries(
      consumerQueuesOf('users', 'x').map(({ queue, bindings }) => [queue, [...bindings].sort()]),
    );
    const people = ['user.created', 'user.updated', 'user.session.ended', 'user.deleted'];
    const blocks = ['user.blocked', 'user.unblocked'];
    expect(ofUsers).toEqual({
      'x.collections': people.sort(),
      'x.comments': [...people, ...blocks].sort(),
      'x.content': [...people, ...blocks].sort(),
      'x.notifications': [...people, ...blocks, 'user.muted', 'user.unmuted'].sort(),
    });
  });

  it('names only the users queue for a service that publishes nothing but its erasure confirmations', () => {
    expect(consumerQueuesOf('notifications', 'x')).toEqual([
      { queue: 'x.users', bindings: ['notifications.user.erased'] },
    ]);
  });
});
