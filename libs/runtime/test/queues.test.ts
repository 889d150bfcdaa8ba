import { describe, expect, it } from 'vitest';
import { consumerQueuesOf } from '../src/queues.js';

describe('consumerQueuesOf', () => {
  it('names the queue of each consumer the catalogue lists for what a service publishes, with the types it takes', () => {
    expect(consumerQueuesOf('comments', 'x')).toEqual([
      { queue: 'x.content', bindings: ['comment.created', 'comment.deleted'] },
      { queue: 'x.notifications', bindings: ['comment.mention.created', 'comment.mention.deleted'] },
    ]);
    const ofUsers = consumerQueuesOf('users', 'x');
    expect(ofUsers.map((consumer) => consumer.queue).sort()).toEqual(['x.collections', 'x.comments', 'x.content', 'x.notifications']);
    for (const consumer of ofUsers) expect(consumer.bindings).toEqual(['user.created', 'user.updated']);
  });

  it('names none for a service that publishes nothing', () => {
    expect(consumerQueuesOf('notifications', 'x')).toEqual([]);
  });
});
