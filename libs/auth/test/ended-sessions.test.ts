import { createApp, type App } from '@recipes/http';
import { createLogger } from '@recipes/logging';
import { expectBearerChallenge } from '@recipes/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  authPlugin,
  callerOf,
  EndedSessions,
  generateSigningKeyPair,
  type SessionEnd,
  tokenIssuer,
} from '../src/index.js';

const alice = '0190f5a4-1c2d-7e3f-8a9b-0c1d2e3f4a5b';
const bob = '0190f5a4-1c2d-7e3f-8a9b-0c1d2e3f4a5c';
const sessionA = '0190f5a4-1c2d-7e3f-8a9b-00000000000a';
const sessionB = '0190f5a4-1c2d-7e3f-8a9b-00000000000b';
const sessionC = '0190f5a4-1c2d-7e3f-8a9b-00000000000c';
const newSession = '0190f5a4-1c2d-7e3f-8a9b-00000000000d';
const otherSession = '0190f5a4-1c2d-7e3f-8a9b-00000000000e';

const at = (ms: number) => new Date(ms).toISOString();
const end = (overrides: Partial<SessionEnd> = {}): SessionEnd => ({
  userId: alice,
  sessionIds: [sessionA],
  notBefore: null,
  tokensExpireBy: at(10_000_000),
  ...overrides,
});

describe('EndedSessions', () => {
  let clock = 1_000_000;
  const store = () => new EndedSessions({ now: () => clock });

  it('refuses the tokens of an ended session, and no other session’s', () => {
    const ended = store();
    ended.learn(end());
    expect(ended.refuses({ userId: alice, sessionId: sessionA, issuedAt: 999 })).toBe(true);
    expect(ended.refuses({ userId: alice, sessionId: sessionB, issuedAt: 999 })).toBe(false);
    expect(ended.refuses({ userId: bob, sessionId: sessionB, issuedAt: 999 })).toBe(false);
  });

  it('with a not-before time, refuses every session of that user issued in a whole second before it, none after', () => {
    const ended = store();
    ended.learn(end({ sessionIds: [sessionA], notBefore: at(5_000_500) }));
    expect(ended.refuses({ userId: alice, sessionId: sessionB, issuedAt: 4_999 })).toBe(true);
    // The same second: a session opened just after the end is not refused (the ended ones are named).
    expect(ended.refuses({ userId: alice, sessionId: sessionC, issuedAt: 5_000 })).toBe(false);
    expect(ended.refuses({ userId: bob, sessionId: sessionB, issuedAt: 4_000 })).toBe(false);
    // An older not-before learnt later does not move it back.
    ended.learn(end({ sessionIds: [sessionA], notBefore: at(3_000_000) }));
    expect(ended.refuses({ userId: alice, sessionId: sessionB, issuedAt: 4_999 })).toBe(true);
  });

  it('forgets an end once no token it could refuse is still valid, and ignores one already past', () => {
    const ended = store();
    clock = 1_000_000;
    ended.learn(end({ tokensExpireBy: at(2_000_000) }));
    ended.learn(end({ userId: bob, sessionIds: [sessionB], tokensExpireBy: at(999_999) }));
    expect(ended.size).toBe(1);
    ended.prune();
    expect(ended.refuses({ userId: alice, sessionId: sessionA, issuedAt: 1 })).toBe(true);
    clock = 2_000_000;
    ended.prune();
    expect(ended.size).toBe(0);
    expect(ended.refuses({ userId: alice, sessionId: sessionA, issuedAt: 1 })).toBe(false);
  });

  it('says why it refuses a token: its account was deleted, or its session ended otherwise', () => {
    const ended = store();
    clock = 1_000_000;
    ended.learn(end({ sessionIds: [sessionA], reason: 'logout' }));
    ended.learn(end({ userId: bob, sessionIds: [sessionB], reason: 'account_deleted', tokensExpireBy: at(2_000_000) }));
    ended.learn(end({ sessionIds: [sessionC], notBefore: at(5_000_000), reason: 'logout_all' }));
    expect(ended.whyRefused({ userId: alice, sessionId: sessionA, issuedAt: 1 })).toBe('SESSION_ENDED');
    expect(ended.whyRefused({ userId: bob, sessionId: sessionB, issuedAt: 1 })).toBe('ACCOUNT_DELETED');
    // Refused by the not-before alone, and an end kept before reasons were: ended.
    expect(ended.whyRefused({ userId: alice, sessionId: newSession, issuedAt: 4_999 })).toBe('SESSION_ENDED');
    ended.learn(end({ userId: bob, sessionIds: [otherSession] }));
    expect(ended.whyRefused({ userId: bob, sessionId: otherSession, issuedAt: 1 })).toBe('SESSION_ENDED');
    expect(ended.whyRefused({ userId: alice, sessionId: newSession, issuedAt: 5_000 })).toBeUndefined();
    // Forgotten with its end: the session is not refused at all then.
    clock = 2_000_000;
    ended.prune();
    expect(ended.whyRefused({ userId: bob, sessionId: sessionB, issuedAt: 1 })).toBeUndefined();
  });

  it('tells its listeners of each end learnt, until they stop', () => {
    const ended = store();
    clock = 1_000_000;
    const heard: SessionEnd[] = [];
    const stop = ended.onEnded((each) => heard.push(each));
    ended.learn(end());
    stop();
    ended.learn(end({ sessionIds: [sessionB] }));
    expect(heard.map((each) => each.sessionIds)).toEqual([[sessionA]]);
    // Only what is new is told: an end read again (a catch-up, a redelivery) is not.
    ended.onEnded((each) => heard.push(each));
    ended.learn(end({ sessionIds: [sessionB] }));
    ended.learn(end({ sessionIds: [sessionC], notBefore: at(5_000_000) }));
    ended.learn(end({ sessionIds: [sessionC], notBefore: at(4_000_000) }));
    expect(heard.map((each) => each.sessionIds)).toEqual([[sessionA], [sessionC]]);
  });
});

describe('the auth plugin with ended sessions', () => {
  const keys = generateSigningKeyPair();
  const issue = tokenIssuer({ privateKey: keys.privateKey, issuer: 'i', audience: 'a', ttlSeconds: 600 });
  const endedSessions = new EndedSessions();
  let app: App;
  beforeAll(async () => {
    app = await createApp({ title: 'ended sessions test', logger: createLogger({ service: 'test', level: 'silent' }) });
    await app.register(authPlugin, { publicKey: keys.publicKey, issuer: 'i', audience: 'a', endedSessions });
    app.get('/api/me', { onRequest: app.auth.required }, async (request) => ({ caller: callerOf(request) }));
    app.get(
      '/api/retry',
      { onRequest: app.auth.required, config: { acceptsEndedSessions: true } },
      async (request) => ({
        caller: callerOf(request),
      }),
    );
    await app.ready();
  });
  afterAll(() => app.close());

  const call = (token: string) =>
    app.inject({ method: 'GET', url: '/api/me', headers: { authorization: `Bearer ${token}` } });
  const issuedAt = Math.floor(Date.now() / 1000);

  it('refuses a token of an ended session with 401 from the moment the end is learnt, remembered verification or not', async () => {
    const token = issue({ id: alice, username: 'alice', sessionId: sessionA, issuedAt });
    const accepted = await call(token);
    expect(accepted.statusCode).toBe(200);
    expect(accepted.json()).toEqual({ caller: { id: alice, username: 'alice', session: { id: sessionA, issuedAt } } });
    endedSessions.learn(end({ tokensExpireBy: at(Date.now() + 600_000) }));
    const refused = await call(token);
    expect(refused.statusCode).toBe(401);
    expect(refused.json()).toMatchObject({
      code: 'UNAUTHORIZED',
      reason: 'SESSION_ENDED',
      detail: 'The session has ended',
    });
    expectBearerChallenge(refused.headers['www-authenticate'], 'SESSION_ENDED');
    expect((await call(issue({ id: alice, username: 'alice', sessionId: sessionB, issuedAt }))).statusCode).toBe(200);
  });

  it('refuses a token of a session its account’s deletion ended with 401 ACCOUNT_DELETED', async () => {
    const token = issue({ id: bob, username: 'bob', sessionId: otherSession, issuedAt });
    expect((await call(token)).statusCode).toBe(200);
    endedSessions.learn(
      end({
        userId: bob,
        sessionIds: [otherSession],
        reason: 'account_deleted',
        tokensExpireBy: at(Date.now() + 600_000),
      }),
    );
    const refused = await call(token);
    expect(refused.statusCode).toBe(401);
    expect(refused.json()).toMatchObject({ code: 'UNAUTHORIZED', reason: 'ACCOUNT_DELETED' });
    expectBearerChallenge(refused.headers['www-authenticate'], 'ACCOUNT_DELETED');
  });

  it('hands a token of an ended session to a route that takes them, marked as such', async () => {
    const token = issue({ id: alice, username: 'alice', sessionId: sessionA, issuedAt });
    endedSessions.learn(end({ tokensExpireBy: at(Date.now() + 600_000) }));
    const taken = await app.inject({ method: 'GET', url: '/api/retry', headers: { authorization: `Bearer ${token}` } });
    expect(taken.statusCode).toBe(200);
    expect(taken.json()).toEqual({
      caller: { id: alice, username: 'alice', session: { id: sessionA, issuedAt }, sessionEnded: true },
    });
    expect((await call(token)).statusCode).toBe(401);
  });

  it('keeps accepting a token from before sessions (no sid) until it expires, whatever ended', async () => {
    endedSessions.learn(
      end({ sessionIds: [sessionC], notBefore: at(Date.now() + 5_000), tokensExpireBy: at(Date.now() + 600_000) }),
    );
    const legacy = await call(issue({ id: alice, username: 'alice' }));
    expect(legacy.statusCode).toBe(200);
    expect(legacy.json()).toEqual({ caller: { id: alice, username: 'alice' } });
    expect((await call(issue({ id: alice, username: 'alice', sessionId: sessionB, issuedAt }))).statusCode).toBe(401);
  });
});
