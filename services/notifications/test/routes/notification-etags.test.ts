import { commentMentionDeleted, createEvent, userUpdated } from '@recipes/contracts';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  bearer,
  mentionEvent,
  type NotificationsHarness,
  notificationsHarness,
  snapshotOf,
  type TestUser,
} from '../support.js';
import { inboxCalls } from './inbox-calls.js';

let harness: NotificationsHarness;
let ada: TestUser;
beforeAll(async () => {
  harness = await notificationsHarness();
  ada = await harness.knownUser('Ada_Actor', 'https://cdn.example.com/ada.png');
});
afterAll(() => harness.close());

const { unreadCount, markRead, mentioned, idsOf } = inboxCalls(
  () => harness,
  () => ada,
);

describe('ETag and If-None-Match', () => {
  const get = (user: TestUser, url: string, etag?: string) =>
    harness.app.inject({
      method: 'GET',
      url,
      headers: { ...bearer(user), ...(etag ? { 'if-none-match': etag } : {}) },
    });

  it('answers 304 with no body while nothing changed, and 200 with a new ETag once anything did', async () => {
    const hana = await harness.knownUser('Hana_ETag');
    const cy = await harness.knownUser('Cy_Avatar');
    const [event] = await mentioned(hana, 1);
    const urls = ['/api/notifications/unread-count', '/api/notifications', '/api/notifications?page=1&limit=5'];
    const tags = async () => Promise.all(urls.map(async (url) => (await get(hana, url)).headers.etag as string));

    let current = await tags();
    expect(new Set(current).size).toBe(urls.length);
    for (const [i, url] of urls.entries()) {
      const first = await get(hana, url);
      expect(first.statusCode).toBe(200);
      expect(first.headers['cache-control']).toBe('private, no-cache');
      for (const ifNoneMatch of [current[i]!, `W/${current[i]}`, `"nope", ${current[i]}`, '*']) {
        const again = await get(hana, url, ifNoneMatch);
        expect(again.statusCode).toBe(304);
        expect(again.body).toBe('');
        expect(again.headers.etag).toBe(current[i]);
      }
      expect((await get(hana, url, '"nope"')).statusCode).toBe(200);
    }

    const changes: [string, () => Promise<unknown>][] = [
      ['a new notification', () => harness.deliver(mentionEvent(cy, hana))],
      ['a read', async () => markRead(hana, { notificationIds: await idsOf(hana) })],
      [
        'a retraction',
        () =>
          harness.deliver(
            createEvent(
              commentMentionDeleted,
              { ...event!.data, deletedAt: new Date().toISOString() },
              { producer: 'comments', correlationId: 'r' },
            ),
          ),
      ],
    ];
    for (const [change, act] of changes) {
      const countBefore = await unreadCount(hana);
      await act();
      const next = await tags();
      for (const [i, url] of urls.entries()) {
        // The unread count's tag follows the count alone: a read notification retracted leaves it as it was.
        if (url.endsWith('unread-count') && (await unreadCount(hana)) === countBefore) {
          expect(next[i], `${change}: ${url}`).toBe(current[i]);
          continue;
        }
        expect(next[i], `${change}: ${url}`).not.toBe(current[i]);
        expect((await get(hana, url, current[i])).statusCode, `${change}: ${url}`).toBe(200);
      }
      current = next;
    }

    // A changed actor avatar changes the listing, not the count.
    await harness.deliver(
      createEvent(
        userUpdated,
        { ...snapshotOf(cy), avatarUrl: 'https://cdn.example.com/cy.png', revision: 1 },
        { producer: 'users', correlationId: 'a' },
      ),
    );
    const afterAvatar = await tags();
    expect(afterAvatar[1]).not.toBe(current[1]);
    expect((await get(hana, urls[1]!, current[1])).statusCode).toBe(200);
  });

  it('gives each page its own tag, cursor pages included: one page’s tag never earns another page a 304', async () => {
    const ivy = await harness.knownUser('Ivy_ETag');
    await mentioned(ivy, 7);
    const first = await get(ivy, '/api/notifications?limit=2');
    const second = await get(ivy, `/api/notifications?limit=2&cursor=${first.json().pagination.nextCursor}`);
    const third = await get(ivy, `/api/notifications?limit=2&cursor=${second.json().pagination.nextCursor}`);
    const byPage = await get(ivy, '/api/notifications?limit=2&page=2');
    const tags = [first, second, third, byPage].map((response) => response.headers.etag as string);
    expect(new Set(tags).size).toBe(4);
    const secondUrl = `/api/notifications?limit=2&cursor=${first.json().pagination.nextCursor}`;
    expect((await get(ivy, secondUrl, tags[1])).statusCode).toBe(304);
    for (const other of [tags[0], tags[2], tags[3]]) expect((await get(ivy, secondUrl, other)).statusCode).toBe(200);
  });

  it('keeps the tags of one user apart from another’s', async () => {
    const ivo = await harness.knownUser('Ivo_ETag');
    const jan = await harness.knownUser('Jan_ETag');
    await mentioned(ivo, 1);
    const ivos = (await get(ivo, '/api/notifications/unread-count')).headers.etag as string;
    await mentioned(jan, 1);
    expect((await get(ivo, '/api/notifications/unread-count', ivos)).statusCode).toBe(304);
  });

  it('binds every tag to its caller: for two users in any states, one’s tag never earns the other a 304, and a tag changes with its body', async () => {
    const urls = [
      '/api/notifications/unread-count',
      '/api/notifications?limit=100',
      '/api/notifications?page=2&limit=1',
    ];
    // What each user's client has seen: per url, the last body and its tag.
    type Seen = Map<string, { body: string; etag: string }>;
    const step = fc.oneof(
      fc.record({ kind: fc.constant('mention' as const), of: fc.nat(1), by: fc.nat(1) }),
      fc.record({ kind: fc.constant('read all' as const), of: fc.nat(1) }),
      fc.record({ kind: fc.constant('retract newest' as const), of: fc.nat(1) }),
      fc.record({ kind: fc.constant('new avatar' as const), by: fc.nat(1) }),
    );
    let run = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(step, { maxLength: 8 }), async (steps) => {
        run += 1;
        const users = [await harness.knownUser(`Tag_A${run}`), await harness.knownUser(`Tag_B${run}`)] as const;
        const actors = [await harness.knownUser(`Tag_C${run}`), await harness.knownUser(`Tag_D${run}`)] as const;
        const mentions: ReturnType<typeof mentionEvent>[][] = [[], []];
        const seen: Seen[] = [new Map(), new Map()];
        let avatars = 0;

        const look = async () => {
          for (const url of urls) {
            const [mine, theirs] = [await get(users[0], url), await get(users[1], url)];
            expect(mine.headers.etag).not.toBe(theirs.headers.etag);
            for (const [i, answer] of [mine, theirs].entries()) {
              expect(answer.statusCode).toBe(200);
              expect(answer.headers.vary).toMatch(/authorization/i);
              const other = users[1 - i]!;
              // The other user, sending this user's tag, gets their own body.
              expect(
                (await get(other, url, answer.headers.etag as string)).statusCode,
                `${url} with the other’s tag`,
              ).toBe(200);
              const before = seen[i]!.get(url);
              // A kept tag means a kept body (never a stale 304). The other way round holds for the count and
              // a whole list; a part of a list gets a new tag with any change to the list (one more 200).
              if (before?.etag === answer.headers.etag)
                expect(answer.body, `${url}: same tag, same body`).toBe(before.body);
              if (before?.body === answer.body && !url.includes('page=2'))
                expect(answer.headers.etag, `${url}: same body, same tag`).toBe(before.etag);
              seen[i]!.set(url, { body: answer.body, etag: answer.headers.etag as string });
            }
          }
        };

        await look();
        for (const action of steps) {
          if (action.kind === 'mention') {
            const event = mentionEvent(actors[action.by]!, users[action.of]!);
            mentions[action.of]!.push(event);
            await harness.deliver(event);
          } else if (action.kind === 'read all') {
            await harness.app.inject({
              method: 'POST',
              url: '/api/notifications/read-all',
              headers: bearer(users[action.of]!),
            });
          } else if (action.kind === 'retract newest') {
            const event = mentions[action.of]!.pop();
            if (event)
              await harness.deliver(
                createEvent(
                  commentMentionDeleted,
                  { ...event.data, deletedAt: new Date().toISOString() },
                  { producer: 'comments', correlationId: 'r' },
                ),
              );
          } else {
            avatars += 1;
            const actor = actors[action.by]!;
            await harness.deliver(
              createEvent(
                userUpdated,
                { ...snapshotOf(actor), avatarUrl: `https://cdn.example.com/${avatars}.png`, revision: avatars },
                { producer: 'users', correlationId: 'a' },
              ),
            );
          }
          await look();
        }
      }),
      { numRuns: 15 },
    );
  });
});
