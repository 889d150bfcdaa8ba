import {
  commentCreated,
  commentDeleted,
  type CommentTargetType,
  createEvent,
  type EventData,
  newId,
} from '@recipes/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { relationHistory } from '../../relation-events.js';
import {
  bearer,
  mentionEvent,
  type NotificationsHarness,
  notificationsHarnessWith,
  type TestUser,
} from '../../support.js';

/** comment.created and comment.deleted (docs/api.md §11.4): replies and comments on a user's content. */
let harness: NotificationsHarness, ada: TestUser;
beforeAll(
  async () =>
    ({
      harness,
      users: [ada],
    } = await notificationsHarnessWith(['Ada_Converses'])),
);
afterAll(() => harness.close());

type CommentData = EventData<typeof commentCreated>;

/** A `comment.created` by `author` on content of `owner`, as the comments service writes it. */
function commentEvent(
  author: { id: string },
  owner: { id: string },
  targetType: CommentTargetType = 'recipe',
  overrides: Partial<CommentData> = {},
) {
  const data = {
    id: newId(),
    targetType,
    targetId: newId(),
    authorId: author.id,
    createdAt: new Date().toISOString(),
    parentId: null,
    targetOwnerId: owner.id,
    repliedToAuthorId: null,
    mentionedUserIds: [],
    ...overrides,
  };
  return createEvent(commentCreated, data, { producer: 'comments', correlationId: 'test-comment' });
}

const deletion = ({ data }: ReturnType<typeof commentEvent>) =>
  createEvent(
    commentDeleted,
    { ...data, deletedAt: new Date().toISOString() },
    { producer: 'comments', correlationId: 'test-delete' },
  );

const listed = async (user: TestUser, query = '') =>
  (await harness.app.inject({ method: 'GET', url: `/api/notifications${query}`, headers: bearer(user) })).json()
    .data as { type: string; commentId: string; groupKey: string }[];

describe('comment.created', () => {
  it.each([
    ['recipe', 'comment_recipe'],
    ['post', 'comment_post'],
    ['collection', 'comment_collection'],
  ] as const)(
    'tells the owner of a %s with one %s, with the comment, once however often it comes',
    async (targetType, type) => {
      const owner = await harness.knownUser(`Owner_${targetType}`);
      const event = commentEvent(ada, owner, targetType);
      await harness.deliver(event);
      await harness.deliver(event);
      expect(await listed(owner)).toEqual([
        expect.objectContaining({
          type,
          commentId: event.data.id,
          contentType: targetType,
          contentId: event.data.targetId,
          groupKey: `${type}:${event.data.targetId}`,
        }),
      ]);
      expect(await harness.countsOf(owner.id)).toEqual({ total: 1, unread: 1 });
    },
  );

  it('tells the author replied to with reply_comment, before the owner, and each user once', async () => {
    const [owner, replied] = [await harness.knownUser('Owner_Thread'), await harness.knownUser('Replied_Thread')];
    const reply = commentEvent(ada, owner, 'post', { parentId: newId(), repliedToAuthorId: replied.id });
    await harness.deliver(reply);
    expect((await listed(replied)).map((n) => [n.type, n.commentId])).toEqual([['reply_comment', reply.data.id]]);
    expect((await listed(owner)).map((n) => n.type)).toEqual(['comment_post']);

    // The owner replied to: the reply only.
    const toOwner = commentEvent(ada, owner, 'post', { parentId: newId(), repliedToAuthorId: owner.id });
    await harness.deliver(toOwner);
    expect((await listed(owner)).map((n) => n.type)).toEqual(['reply_comment', 'comment_post']);
  });

  it('leaves the users the comment mentions to their mentions, and never tells the author', async () => {
    const owner = await harness.knownUser('Owner_Mentioned');
    const event = commentEvent(ada, owner, 'recipe', { mentionedUserIds: [owner.id] });
    await Promise.all([
      harness.deliver(event),
      harness.deliver(
        mentionEvent(ada, owner, 'recipe_comment', { commentId: event.data.id, targetId: event.data.targetId }),
      ),
    ]);
    expect((await listed(owner)).map((n) => n.type)).toEqual(['mention_recipe_comment']);

    await harness.deliver(commentEvent(ada, ada, 'recipe', { repliedToAuthorId: ada.id }));
    expect(await harness.rowsOf(ada.id)).toEqual([]);
  });

  it('is kept by the `types` filter, turned off in preferences, and grouped by content', async () => {
    const owner = await harness.knownUser('Owner_Filters');
    const targetId = newId();
    const [first, second] = [
      commentEvent(ada, owner, 'recipe', { targetId }),
      commentEvent(ada, owner, 'recipe', { targetId }),
    ];
    await harness.deliver(first);
    await harness.deliver(second);
    await harness.deliver(commentEvent(ada, owner, 'post', { repliedToAuthorId: owner.id }));
    expect((await listed(owner, '?types=comment_recipe')).map((n) => n.commentId).sort()).toEqual(
      [first.data.id, second.data.id].sort(),
    );
    const groups = (
      await harness.app.inject({ method: 'GET', url: '/api/notifications/groups', headers: bearer(owner) })
    ).json().groups;
    expect(groups.map((group: { type: string; count: number }) => [group.type, group.count])).toEqual([
      ['reply_comment', 1],
      ['comment_recipe', 2],
    ]);

    const put = await harness.app.inject({
      method: 'PUT',
      url: '/api/notifications/preferences',
      headers: bearer(owner),
      payload: { types: { comment_recipe: false } },
    });
    expect(put.json().types).toMatchObject({ comment_recipe: false, reply_comment: true });
    await harness.deliver(commentEvent(ada, owner, 'recipe', { targetId }));
    expect(await listed(owner, '?types=comment_recipe')).toHaveLength(2);
  });

  it('is stored for nobody the author is muted or blocked by', async () => {
    const owner = await harness.knownUser('Owner_Mutes');
    for (const event of relationHistory(owner, ada, [{ kind: 'mute', on: true }])) await harness.deliver(event);
    await harness.deliver(commentEvent(ada, owner, 'collection', { repliedToAuthorId: owner.id }));
    expect(await harness.rowsOf(owner.id)).toEqual([]);
  });
});

describe('comment.deleted', () => {
  it('retracts everything the comment caused, and a deletion handled first stores nothing after it', async () => {
    const [owner, replied, named] = [
      await harness.knownUser('Owner_Deleted'),
      await harness.knownUser('Replied_Deleted'),
      await harness.knownUser('Named_Deleted'),
    ];
    const event = commentEvent(ada, owner, 'recipe', { repliedToAuthorId: replied.id, mentionedUserIds: [named.id] });
    await harness.deliver(event);
    await harness.deliver(
      mentionEvent(ada, named, 'recipe_comment', { commentId: event.data.id, targetId: event.data.targetId }),
    );
    await harness.deliver(deletion(event));
    for (const user of [owner, replied, named]) {
      expect(await listed(user)).toEqual([]);
      expect(await harness.countsOf(user.id)).toEqual({ total: 0, unread: 0 });
    }

    const late = commentEvent(ada, owner, 'post', { repliedToAuthorId: replied.id });
    await harness.deliver(deletion(late));
    await harness.deliver(late);
    // Only the first comment's row, retracted: the late one stored nothing.
    expect(await harness.rowsOf(owner.id)).toHaveLength(1);
    expect(await listed(owner)).toEqual([]);
    expect(await listed(replied)).toEqual([]);
  });
});
