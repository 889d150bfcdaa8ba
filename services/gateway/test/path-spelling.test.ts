import { problemSchema } from '@recipes/contracts';
import { type App, dualProtocolServer } from '@recipes/http';
import fc from 'fast-check';
import Fastify, { type FastifyInstance } from 'fastify';
import { Client } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { routeTable, type Service, serviceFor, services } from '../src/route-table.js';
import { allowedSegment, fill, hostileTarget, patterns, segmentValue, spellSegment } from './support/path-spellings.js';
import { addressOf, everyServiceAt, type Recorder, startGateway, startRecorder } from './support/servers.js';

/**
 * docs/api.md §1: a path names exactly the endpoint it spells, and no spelling reaches a service's internal
 * routes. Requests go out as raw request targets through undici's Client, which writes the path as given
 * (app.inject would resolve `\` and dot segments before the gateway saw them).
 */
const SEED = Number(process.env.PATH_FUZZ_SEED ?? 20_260_311);
const HOSTILE_RUNS = 1_500;
const PLAIN_RUNS = 300;

const id = '0190f5a4-1c2d-7e3f-8a9b-0c1d2e3f4a5b';

let recorders: Record<Service, Recorder>;
let gateway: App;
let client: Client;

beforeAll(async () => {
  const started = await Promise.all(services.map((service) => startRecorder(service)));
  recorders = Object.fromEntries(started.map((recorder) => [recorder.name, recorder])) as Record<Service, Recorder>;
  gateway = await startGateway(
    {
      USERS_URL: recorders.users.url,
      CONTENT_URL: recorders.content.url,
      COMMENTS_URL: recorders.comments.url,
      COLLECTIONS_URL: recorders.collections.url,
      NOTIFICATIONS_URL: recorders.notifications.url,
      RATE_LIMIT_ENABLED: 'false',
    },
    { listen: true },
  );
  client = new Client(addressOf(gateway));
});

afterAll(async () => {
  await client?.close();
  await gateway?.close();
  await Promise.all(Object.values(recorders ?? {}).map((recorder) => recorder.close()));
});

interface Outcome {
  status: number;
  contentType: string;
  text: string;
  /** What reached a service, if anything: which one, and the request target it received. */
  forwarded?: { service: Service; url: string };
}

/** GET `target` exactly as spelled; requests go one at a time, so whatever a recorder got came from this one. */
async function send(target: string): Promise<Outcome> {
  const before = services.map((service) => recorders[service].received.length);
  const response = await client.request({ method: 'GET', path: target });
  const text = await response.body.text();
  const reached = services.filter((service, index) => recorders[service].received.length > before[index]!);
  expect(reached.length, 'forwarded to more than one service').toBeLessThanOrEqual(1);
  const service = reached[0];
  return {
    status: response.statusCode,
    contentType: String(response.headers['content-type']),
    text,
    forwarded: service && { service, url: recorders[service].received.at(-1)! },
  };
}

function expectNotFound(outcome: Outcome) {
  expect(outcome.forwarded).toBeUndefined();
  expect(outcome.status).toBe(404);
  expect(outcome.contentType).toMatch(/^application\/problem\+json/);
  expect(problemSchema.parse(JSON.parse(outcome.text))).toMatchObject({ status: 404, code: 'NOT_FOUND' });
}

const splitQuery = (target: string) => {
  const mark = target.indexOf('?');
  return mark === -1 ? { path: target, query: '' } : { path: target.slice(0, mark), query: target.slice(mark + 1) };
};

const decodes = (text: string) => {
  try {
    decodeURIComponent(text);
    return true;
  } catch {
    return false;
  }
};

/**
 * The gateway's answer to `target`, judged from the outside. Refused: 404 NOT_FOUND problem+json, or 400
 * problem+json when the path holds an escape that is not UTF-8 (the app's URL check answers those before
 * routing). Forwarded: the path the client spelled, segment for segment, in canonical spelling, to the
 * service the table names for it, with the query string untouched.
 */
function judge(target: string, outcome: Outcome) {
  const { path, query } = splitQuery(target);
  if (outcome.forwarded === undefined) {
    expect(outcome.contentType).toMatch(/^application\/problem\+json/);
    const problem = problemSchema.parse(JSON.parse(outcome.text));
    if (outcome.status === 400 && !decodes(path)) return;
    expect(problem).toMatchObject({ status: 404, code: 'NOT_FOUND' });
    return;
  }
  const { service, url } = outcome.forwarded;
  expect(outcome.status).toBe(200);
  const forwarded = splitQuery(url);
  expect(forwarded.query).toBe(query);
  expect(url).toBe(query === '' ? forwarded.path : `${forwarded.path}?${query}`);

  // A public route, owned by the service that got it, and spelled so no parser can read it otherwise: never
  // `/internal/...` (an `internal` further on, as in `/api/users/internal`, is only an id the client named).
  expect(forwarded.path.startsWith('/api/')).toBe(true);
  expect(serviceFor(forwarded.path)).toBe(service);
  expect(new URL(forwarded.path, 'http://gateway.test').pathname).toBe(forwarded.path);
  const segments = forwarded.path.slice(1).split('/');
  for (const segment of segments) expect(encodeURIComponent(decodeURIComponent(segment))).toBe(segment);

  // Exactly the segments the client spelled, each of which the contract allows.
  const spelled = path.slice(1).split('/').map(decodeURIComponent);
  expect(segments.map(decodeURIComponent)).toEqual(spelled);
  for (const segment of spelled) expect(allowedSegment(segment), JSON.stringify(segment)).toBe(true);
}

describe('the reported attacks', () => {
  it.each([
    '/api/users/x\\..\\..\\..\\internal\\users?usernames=alice',
    `/api/users/x\\..\\..\\..\\internal\\content\\recipes\\${id}`,
    '/api/users/x%5C..%5C..%5C..%5Cinternal%5Cusers?usernames=alice',
    '/api/users/x%2F..%2F..%2F..%2Finternal%2Fusers?usernames=alice',
    '/api/users/x/%2e%2e/%2E%2E/%2e%2E/internal/users?usernames=alice',
    '/api/users/x/%252e%252e/%252e%252e/internal/users?usernames=alice',
    '/api/users/x/%c0%ae%c0%ae/%c0%ae%c0%ae/internal/users?usernames=alice',
  ])('%s reaches no service', async (target) => {
    const outcome = await send(target);
    expect(outcome.forwarded).toBeUndefined();
    judge(target, outcome);
  });

  it('answers the backslash spelling with the usual 404 wording', async () => {
    const target = '/api/users/x\\..\\..\\..\\internal\\users?usernames=alice';
    const outcome = await send(target);
    expectNotFound(outcome);
    expect(JSON.parse(outcome.text).detail).toBe('No route for GET /api/users/x\\..\\..\\..\\internal\\users');
  });

  it('still forwards a plain request, path and query as sent', async () => {
    const outcome = await send(`/api/users/${id}/recipes?page=2&q=a%2Fb/../c`);
    expect(outcome.forwarded).toEqual({ service: 'content', url: `/api/users/${id}/recipes?page=2&q=a%2Fb/../c` });
  });

  it('forwards a `;` as a character of its segment, encoded', async () => {
    const outcome = await send('/api/users/alice;jsessionid=1');
    expect(outcome.forwarded).toEqual({ service: 'users', url: '/api/users/alice%3Bjsessionid%3D1' });
  });
});

describe(`hostile spellings around the route table (seed ${SEED}; PATH_FUZZ_SEED to change it)`, () => {
  it(`forwards only table routes, in canonical spelling, and refuses the rest (${HOSTILE_RUNS} requests)`, async () => {
    const counts = { forwarded: 0, refused: 0 };
    await fc.assert(
      fc.asyncProperty(hostileTarget, async (target) => {
        const outcome = await send(target);
        counts[outcome.forwarded ? 'forwarded' : 'refused'] += 1;
        judge(target, outcome);
      }),
      { seed: SEED, numRuns: HOSTILE_RUNS },
    );
    console.log(`path spelling: ${counts.forwarded} forwarded, ${counts.refused} refused (seed ${SEED})`);
    // Both branches of the judgement were exercised.
    expect(counts.forwarded).toBeGreaterThan(HOSTILE_RUNS / 20);
    expect(counts.refused).toBeGreaterThan(HOSTILE_RUNS / 20);
  });
});

/**
 * A Fastify service with the table's routes, answering with the route and the params its router read; over
 * HTTP/2 as well, as the services are, for the stream routes.
 */
async function startRoutingUpstream(): Promise<FastifyInstance> {
  const server = Fastify({ serverFactory: dualProtocolServer });
  for (const [pattern] of routeTable)
    server.get(pattern, async (request) => ({ route: request.routeOptions.url, params: request.params }));
  await server.listen({ host: '127.0.0.1', port: 0 });
  return server;
}

describe(`what the service's router reads (seed ${SEED})`, () => {
  let upstream: FastifyInstance;
  let routed: App;
  let routedClient: Client;

  beforeAll(async () => {
    upstream = await startRoutingUpstream();
    const url = `http://127.0.0.1:${(upstream.server.address() as { port: number }).port}`;
    routed = await startGateway({ ...everyServiceAt(url), RATE_LIMIT_ENABLED: 'false' }, { listen: true });
    routedClient = new Client(addressOf(routed));
  });

  afterAll(async () => {
    await routedClient?.close();
    await routed?.close();
    await upstream?.close();
  });

  it(`sees the route and the exact values the client spelled (${PLAIN_RUNS} requests)`, async () => {
    const request = fc
      .tuple(fc.constantFrom(...patterns), segmentValue, fc.array(segmentValue, { minLength: 1, maxLength: 3 }))
      .chain(([pattern, value, words]) =>
        fc.tuple(
          fc.constant({ pattern, value, words }),
          fc.tuple(...fill(pattern, value, words).map(spellSegment)).map((spelled) => `/${spelled.join('/')}`),
        ),
      );
    await fc.assert(
      fc.asyncProperty(request, async ([{ pattern, value, words }, target]) => {
        const response = await routedClient.request({ method: 'GET', path: target });
        const body = (await response.body.json()) as { route: string; params: Record<string, string> };
        expect(response.statusCode, target).toBe(200);
        expect(body.route).toBe(pattern);
        if (pattern.includes(':id')) expect(body.params.id).toBe(value);
        if (pattern.includes('*')) expect(body.params['*']).toBe(words.join('/'));
      }),
      { seed: SEED, numRuns: PLAIN_RUNS },
    );
  });
});
