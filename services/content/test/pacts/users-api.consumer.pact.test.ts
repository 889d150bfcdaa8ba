import { MatchersV3 } from '@pact-foundation/pact';
import { DomainError } from '@recipes/contracts';
import { RelationDirectory, UserDirectory } from '@recipes/directory';
import { freshHttpPact, pactNames } from '@recipes/testing/pact';
import { beforeEach, describe, expect, it } from 'vitest';
import { findUser } from '../../src/people.js';
import { taggedUsers } from '../../src/tagging.js';
import { contentDatabase } from '../support.js';

/**
 * What content asks the users service about users its read model has not heard of yet (read-your-writes):
 * the caller publishing, a user named in a path, and tagged names. Content's own code makes each request,
 * through the directory it uses, against Pact's mock of the users service.
 */
const { fromProviderState, integer, like, uuid, eachLike } = MatchersV3;
const pact = freshHttpPact('content', pactNames.api('users'));

const db = contentDatabase();
// Every look-up starts from a read model that knows nobody, so that it has to ask.
beforeEach(() => db.pool.query('TRUNCATE users'));

const directoryOn = (url: string) => new UserDirectory({ pool: db.pool, usersUrl: url });

const exampleId = '0190f5a4-1c2d-7e3f-8a9b-0c1d2e3f4a5b';
const author = { id: '0190f5a4-1c2d-7e3f-8a9b-0c1d2e3f4a5f', username: 'someone_else', avatarUrl: null, revision: 0 };
const adaState = { username: 'Pact_Ada', avatarUrl: 'https://cdn.example.com/ada.png' };
const adaSnapshot = { username: 'Pact_Ada', avatarUrl: like('https://cdn.example.com/ada.png'), revision: integer(0) };

describe('content asking users-api', () => {
  it('looks a user up by id, and remembers them', () =>
    pact
      .given('a user exists', adaState)
      .uponReceiving('a look-up of a user by id')
      .withRequest({ method: 'GET', path: fromProviderState('/internal/users/${id}', `/internal/users/${exampleId}`) })
      .willRespondWith({
        status: 200,
        headers: { 'content-type': like('application/json; charset=utf-8') },
        body: { user: { id: fromProviderState('${id}', exampleId), ...adaSnapshot } },
      })
      .executeTest(async (mockServer) => {
        const user = await findUser(directoryOn(mockServer.url), exampleId);
        expect(user).toEqual({
          id: exampleId,
          username: 'Pact_Ada',
          avatarUrl: 'https://cdn.example.com/ada.png',
          revision: 0,
        });
        const { rows } = await db.pool.query('SELECT username FROM users WHERE id = $1', [exampleId]);
        expect(rows).toEqual([{ username: 'Pact_Ada' }]);
      }));

  it('learns that an id names nobody', () =>
    pact
      .uponReceiving('a look-up of an unknown user id')
      .withRequest({ method: 'GET', path: `/internal/users/${exampleId}` })
      .willRespondWith({ status: 404 })
      .executeTest(async (mockServer) => {
        const refused = await directoryOn(mockServer.url)
          .caller(exampleId)
          .catch((error: unknown) => error);
        // An unknown caller, which the errors plugin answers with 401.
        expect(refused).toBeInstanceOf(DomainError);
        expect((refused as DomainError).kind).toBe('unknown_caller');
      }));

  it('resolves tagged names in any case', () =>
    pact
      .given('a user exists', adaState)
      .uponReceiving('a look-up of users by username')
      .withRequest({ method: 'GET', path: '/internal/users', query: { usernames: 'pact_ada,nobody_here' } })
      .willRespondWith({
        status: 200,
        headers: { 'content-type': like('application/json; charset=utf-8') },
        body: { users: eachLike({ id: uuid(exampleId), ...adaSnapshot }) },
      })
      .executeTest(async (mockServer) => {
        const tagged = await taggedUsers(directoryOn(mockServer.url), new RelationDirectory(db.pool), author, [
          'PACT_ADA',
          'nobody_here',
          'Pact_Ada',
        ]);
        expect(tagged.map((user) => user.username)).toEqual(['Pact_Ada']);
      }));

  it('learns that names name nobody', () =>
    pact
      .uponReceiving('a look-up of unknown usernames')
      .withRequest({ method: 'GET', path: '/internal/users', query: { usernames: 'nobody_here' } })
      .willRespondWith({ status: 200, body: { users: [] } })
      .executeTest(async (mockServer) => {
        expect(await findUser(directoryOn(mockServer.url), 'Nobody_Here')).toBeUndefined();
      }));
});
