import { BODY_LIMIT_BYTES, JSON_DEPTH_LIMIT } from '@recipes/http';
import fc from 'fast-check';
import {
  anyJson,
  AWKWARD_JSON,
  BROKEN_SEGMENTS,
  BROKEN_UTF8,
  encodings,
  hostileNumber,
  hostileString,
  nestedJson,
  NOT_JSON,
  repeatedKeysJson,
  wideJson,
  WRONG_CONTENT_TYPES,
} from './hostile.js';
import type { RawRequest } from './http.js';
import { fillPath, type JsonSchema, type Operation, type Parameter } from './openapi.js';
import { systemTokens } from './tokens.js';
import type { World } from './world.js';

// The requests test/fuzz.test.ts sends: malformed and hostile variants of every public operation's path,
// query, headers and body; a mutating one always with a defect that must make the system refuse it.
/** Why a request must be refused; every mutating request carries at least one. */
export type Defect =
  | 'no token'
  | 'forged token'
  | 'malformed path id'
  | 'unknown id'
  | 'wrong content type'
  | 'not JSON'
  | 'oversized body'
  | 'nested too deep'
  | 'schema violation'
  | 'wrong credentials'
  | 'taken username'
  | 'unknown content';

export const SLOW_DEFECTS = new Set<Defect>(['wrong credentials', 'taken username']);

export interface FuzzRequest extends RawRequest {
  operation: string;
  mutating: boolean;
  defect: Defect | undefined;
}

export const describeRequest = (request: FuzzRequest) =>
  `${request.method} ${request.path.slice(0, 200)} [${request.operation}; defect: ${request.defect ?? 'none'}; ` +
  `content-type: ${request.headers?.['content-type'] ?? '-'}; token: ${request.headers?.authorization ? 'yes' : 'no'}; ` +
  `idempotency-key: ${request.headers?.[IDEMPOTENCY_KEY] ?? '-'}; ` +
  `body: ${request.body ? JSON.stringify(request.body.subarray(0, 160).toString('utf8')) : '-'}` +
  `${request.body && request.body.length > 160 ? ` …(${request.body.length} bytes)` : ''}]`;

export const IDEMPOTENCY_KEY = 'idempotency-key';

const LOOSE_UUID = /[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}/i;

/**
 * The generators, built once the world exists (they draw on its ids, names and tokens, signed with the
 * keys of the system named `system`).
 */
export function generators(world: World, system: string) {
  const tokens = systemTokens(system);
  const ids = Object.values(world.ids);
  const usernames = [world.ada.user.username, world.bob.user.username];

  const validAuthorization = fc.constantFrom(
    ...[world.ada.user, world.bob.user, world.ghost].map((subject) => `Bearer ${tokens.valid(subject)}`),
  );
  const forgedAuthorization = fc.constantFrom(
    ...Object.values(tokens.forgeries).map((forge) => `Bearer ${forge(world.ada.user)}`),
    '',
    'Bearer',
    'Bearer ',
    'Basic ZnV6el9hZGE6Y29ycmVjdCBob3JzZQ==',
    `bearer${world.ada.token}`,
    `Bearer ${world.ada.token} ${world.bob.token}`,
    `Bearer ${world.ada.token}.`,
    `Bearer ${world.ada.token.split('.').slice(0, 2).join('.')}`,
  );
  // Any value a client can send as the header (what node:http lets through), with the scheme or without: every
  // answer to it is a 401 of a reason and a well-formed challenge (docs/api.md §2), never a 5xx.
  const arbitraryAuthorization = fc
    .tuple(fc.constantFrom('', 'Bearer ', 'bearer '), fc.string({ maxLength: 80, unit: 'binary' }))
    .map(([scheme, text]) => `${scheme}${text}`.replace(/[^\t\x20-\x7e\x80-\xff]/g, ''));
  const refusedAuthorization = fc.oneof(
    { weight: 3, arbitrary: forgedAuthorization },
    { weight: 1, arbitrary: arbitraryAuthorization },
  );
  const anyAuthorization = fc.oneof(
    { weight: 1, arbitrary: fc.constant(undefined) },
    { weight: 4, arbitrary: validAuthorization },
    { weight: 1, arbitrary: refusedAuthorization },
  );

  const malformedSegment = fc.oneof(
    hostileString.filter((text) => !LOOSE_UUID.test(text)).chain(encodings),
    fc.constantFrom(...BROKEN_SEGMENTS),
  );
  const plausibleSegment = fc.oneof(
    { weight: 3, arbitrary: fc.constantFrom(...ids) },
    { weight: 1, arbitrary: fc.constantFrom(...ids).map((id) => id.toUpperCase()) },
    { weight: 1, arbitrary: fc.constantFrom(...usernames, usernames[0]!.toUpperCase(), 'me') },
    { weight: 1, arbitrary: fc.uuid() },
    { weight: 2, arbitrary: malformedSegment },
  );

  const typesOf = (schema: JsonSchema): Set<string> => {
    if (schema.anyOf) return new Set(schema.anyOf.flatMap((branch) => [...typesOf(branch)]));
    if (schema.type) return new Set([schema.type]);
    return new Set((schema.enum ?? []).map((value) => (value === null ? 'null' : typeof value)));
  };

  /** A value the schema may or may not accept: mostly close to right, sometimes hostile. */
  const plausible = (schema: JsonSchema): fc.Arbitrary<unknown> => {
    if (schema.anyOf) return fc.oneof(...schema.anyOf.map(plausible));
    if (schema.enum) return fc.oneof(fc.constantFrom(...schema.enum), hostileString);
    switch (schema.type) {
      case 'string': {
        if (schema.format === 'uuid') return fc.oneof(fc.constantFrom(...ids), fc.uuid(), hostileString);
        if (schema.pattern) return fc.oneof(fc.stringMatching(new RegExp(schema.pattern)), hostileString);
        return fc.oneof(
          fc.string({ minLength: 1, maxLength: 30 }),
          fc.webUrl(),
          hostileString,
          fc.constantFrom(...usernames),
        );
      }
      case 'array':
        return fc.array(plausible(schema.items ?? {}), {
          minLength: schema.minItems ?? 0,
          maxLength: Math.min(schema.maxItems ?? 5, 30),
        });
      case 'null':
        return fc.constant(null);
      case 'object':
        return plausibleObject(schema);
      default:
        return anyJson;
    }
  };

  /** An object with any of the schema's properties, and sometimes fields nobody asked for. */
  const plausibleObject = (schema: JsonSchema): fc.Arbitrary<Record<string, unknown>> => {
    const properties = Object.fromEntries(
      Object.entries(schema.properties ?? {}).map(([name, property]) => [name, plausible(property)]),
    );
    const extras = fc.dictionary(
      fc.oneof(
        hostileString,
        fc.constantFrom(
          '__proto__',
          'constructor',
          'id',
          'userId',
          'ownerId',
          'authorId',
          'isAdmin',
          'role',
          'createdAt',
        ),
      ),
      anyJson,
      { maxKeys: 3 },
    );
    return fc
      .tuple(extras, fc.record(properties, { requiredKeys: [] }))
      .map(([extra, known]) => ({ ...extra, ...known }));
  };

  /** A value the schema certainly refuses: a wrong type, or a string or array past its limits. */
  const violating = (schema: JsonSchema): fc.Arbitrary<unknown> => {
    const allowed = typesOf(schema);
    const options: fc.Arbitrary<unknown>[] = [];
    if (!allowed.has('string')) options.push(hostileString);
    if (!allowed.has('number') && !allowed.has('integer')) options.push(hostileNumber);
    if (!allowed.has('boolean')) options.push(fc.boolean());
    if (!allowed.has('null')) options.push(fc.constant(null));
    if (!allowed.has('array')) options.push(fc.array(anyJson, { maxLength: 3 }));
    if (!allowed.has('object')) options.push(fc.dictionary(fc.string(), anyJson, { maxKeys: 3 }));
    const strings = (schema.anyOf ?? [schema]).filter((branch) => branch.type === 'string' || branch.enum);
    if (strings.length === 1) {
      const [string] = strings as [JsonSchema];
      if (string.enum) options.push(hostileString.filter((text) => !string.enum!.includes(text)));
      if (string.pattern) {
        const pattern = new RegExp(string.pattern);
        options.push(hostileString.filter((text) => !pattern.test(text)));
      }
      if (string.maxLength !== undefined)
        options.push(fc.string({ minLength: string.maxLength + 1, maxLength: string.maxLength + 100 }));
    }
    if (schema.type === 'array') {
      const items = schema.items ?? {};
      if (schema.maxItems !== undefined)
        options.push(fc.array(plausible(items), { minLength: schema.maxItems + 1, maxLength: schema.maxItems + 3 }));
      if (schema.minItems) options.push(fc.constant([]));
      options.push(
        fc
          .tuple(fc.array(plausible(items), { maxLength: 2 }), violating(items))
          .map(([fine, wrong]) => [...fine, wrong]),
      );
    }
    return fc.oneof(...options);
  };

  /** A body the schema certainly refuses: not an object, a required field missing, or one field wrong. */
  const violatingBody = (schema: JsonSchema): fc.Arbitrary<unknown> => {
    const required = schema.required ?? [];
    const properties = Object.entries(schema.properties ?? {});
    return fc.oneof(
      anyJson.filter((value) => value === null || typeof value !== 'object' || Array.isArray(value)),
      ...(required.length > 0
        ? [
            fc
              .tuple(plausibleObject(schema), fc.constantFrom(...required))
              .map(([body, name]) => Object.fromEntries(Object.entries(body).filter(([key]) => key !== name))),
          ]
        : []),
      ...properties.map(([name, property]) =>
        fc.tuple(plausibleObject(schema), violating(property)).map(([body, wrong]) => ({ ...body, [name]: wrong })),
      ),
    );
  };

  const json = (value: unknown) => Buffer.from(JSON.stringify(value) ?? 'null');
  const text = (value: string) => Buffer.from(value);
  const withinBodyLimit = (body: Buffer) => body.length <= BODY_LIMIT_BYTES;

  /**
   * A body past JSON_DEPTH_LIMIT within the body limit: the whole body, or one field of an otherwise
   * plausible one; just past the limit or 30,000 levels deep.
   */
  const tooDeep = (schema: JsonSchema): fc.Arbitrary<Buffer> => {
    const levels = fc.oneof(
      fc.integer({ min: JSON_DEPTH_LIMIT + 1, max: JSON_DEPTH_LIMIT + 8 }),
      fc.integer({ min: JSON_DEPTH_LIMIT + 9, max: 30_000 }),
    );
    const shape = fc.constantFrom('arrays' as const, 'objects' as const, 'mixed' as const);
    const deep = fc.tuple(levels, shape).map(([depth, form]) => nestedJson(depth, form));
    return fc
      .oneof(
        deep,
        fc
          .tuple(plausibleObject(schema), fc.constantFrom('nested', ...Object.keys(schema.properties ?? {})), deep)
          .map(
            ([body, field, value]) =>
              `${JSON.stringify({ ...body, [field]: 0 }).slice(0, -1)},${JSON.stringify(field)}:${value}}`,
          ),
      )
      .map(text)
      .filter(withinBodyLimit);
  };
  const jsonContentType = fc.constantFrom('application/json', 'application/json; charset=utf-8', 'Application/JSON');

  interface BodyPart {
    body?: Buffer;
    contentType?: string;
    chunked?: boolean;
  }

  /** Whatever a client might send as the body, for an operation that takes one or not. */
  const anyBody = (operation: Operation): fc.Arbitrary<BodyPart> => {
    const jsonBody = (bytes: fc.Arbitrary<Buffer>) => fc.record({ body: bytes, contentType: jsonContentType });
    if (operation.method === 'GET')
      return fc.oneof({ weight: 9, arbitrary: fc.constant({}) }, { weight: 1, arbitrary: jsonBody(anyJson.map(json)) });
    if (!operation.body)
      return fc.oneof(fc.constant({}), jsonBody(fc.constantFrom('{}', 'null').map((text) => Buffer.from(text))));
    return fc.oneof(
      { weight: 6, arbitrary: jsonBody(plausibleObject(operation.body).map(json)) },
      { weight: 1, arbitrary: jsonBody(anyJson.map(json)) },
      { weight: 1, arbitrary: jsonBody(fc.constantFrom(...AWKWARD_JSON).map((text) => Buffer.from(text))) },
      { weight: 1, arbitrary: jsonBody(fc.constantFrom(...BROKEN_UTF8)) },
      {
        weight: 1,
        arbitrary: jsonBody(
          fc
            .tuple(plausibleObject(operation.body), wideJson)
            .map(([body, wide]) => json({ ...body, wide }))
            .filter(withinBodyLimit),
        ),
      },
      { weight: 1, arbitrary: jsonBody(wideJson.map(json)) },
      {
        weight: 1,
        arbitrary: jsonBody(
          fc
            .tuple(
              plausibleObject(operation.body),
              anyJson,
              fc.boolean(),
              fc.option(fc.constantFrom('a', '__proto__', ...Object.keys(operation.body.properties ?? {})), {
                nil: undefined,
              }),
            )
            .map(([body, decoy, lastWins, flood]) => text(repeatedKeysJson(body, decoy, lastWins, flood)))
            .filter(withinBodyLimit),
        ),
      },
      { weight: 1, arbitrary: fc.constant({}) },
    );
  };

  const defectBody = (operation: Operation, defect: Defect): fc.Arbitrary<BodyPart> | undefined => {
    const schema = operation.body ?? { type: 'object' };
    switch (defect) {
      case 'wrong content type':
        return fc.record({
          body: fc.oneof(
            plausibleObject(schema).map(json),
            hostileString.filter((text) => text !== '').map((text) => Buffer.from(text)),
          ),
          contentType: fc.constantFrom(...WRONG_CONTENT_TYPES),
        });
      case 'not JSON':
        return fc.record({
          body: fc.constantFrom(...NOT_JSON, ...(operation.body ? [''] : [])).map((text) => Buffer.from(text)),
          contentType: jsonContentType,
        });
      case 'oversized body':
        return fc.record({
          body: fc
            .tuple(plausibleObject(schema), fc.integer({ min: BODY_LIMIT_BYTES + 1, max: 2 * BODY_LIMIT_BYTES }))
            .map(([body, size]) => json({ ...body, padding: 'x'.repeat(size) })),
          contentType: jsonContentType,
          chunked: fc.boolean(),
        });
      case 'nested too deep':
        return fc.record({ body: tooDeep(schema), contentType: jsonContentType, chunked: fc.boolean() });
      case 'schema violation':
        return fc.record({ body: violatingBody(schema).map(json), contentType: jsonContentType });
      case 'wrong credentials':
        return fc.record({
          body: fc
            .record({
              username: fc.oneof(
                fc.constantFrom(...usernames, usernames[0]!.toUpperCase(), 'fuzz_nobody'),
                hostileString,
              ),
              password: fc.oneof(fc.constant('wrong horse battery'), hostileString),
            })
            .map(json),
          contentType: jsonContentType,
        });
      case 'taken username':
        return fc.record({
          body: fc
            .constantFrom(...usernames, usernames[0]!.toUpperCase())
            .map((username) => json({ username, password: 'correct horse battery' })),
          contentType: jsonContentType,
        });
      case 'unknown content':
        return fc.record({
          body: fc
            .oneof(
              fc.record({ contentType: fc.constantFrom('recipe', 'post'), contentId: fc.uuid({ version: 4 }) }),
              fc.constant({ contentType: 'post', contentId: world.ids.recipe }),
              fc.constant({ contentType: 'recipe', contentId: world.ids.post }),
              fc.constant({ contentType: 'recipe', contentId: world.ids.deletedRecipe }),
            )
            .map(json),
          contentType: jsonContentType,
        });
      default:
        return undefined;
    }
  };

  const defectsOf = (operation: Operation): Defect[] => {
    const defects: Defect[] = [];
    if (operation.token === 'required') defects.push('no token');
    if (operation.token !== 'none') defects.push('forged token');
    if (operation.pathParameters.some((parameter) => parameter.schema.format === 'uuid'))
      defects.push('malformed path id');
    if (operation.pathParameters.length > 0) defects.push('unknown id');
    if (operation.method !== 'GET') defects.push('wrong content type', 'not JSON', 'oversized body', 'nested too deep');
    if (operation.body) defects.push('schema violation');
    if (operation.key === 'POST /api/auth/login') defects.push('wrong credentials');
    if (operation.key === 'POST /api/auth/register') defects.push('taken username');
    if (operation.key === 'POST /api/saved-items') defects.push('unknown content');
    return defects;
  };

  const queryValue = (parameter: Parameter) =>
    fc.oneof(
      plausible(parameter.schema).map((value) => (Array.isArray(value) ? value.join(',') : String(value))),
      hostileString,
      hostileNumber.map(String),
      fc.constantFrom('0', '-1', '1.5', '1e3', '101', '100000', '99999999999999999999', ''),
    );

  const anyQuery = (operation: Operation): fc.Arbitrary<string> => {
    const names = operation.queryParameters.map((parameter) => parameter.name);
    const declared = operation.queryParameters.map((parameter) =>
      fc.option(fc.tuple(fc.constant(parameter.name), queryValue(parameter)), { nil: undefined }),
    );
    const extra = fc.array(
      fc.tuple(
        fc.oneof(hostileString, fc.constantFrom(...names, 'page[]', 'limit[x]', '__proto__')),
        fc.oneof(hostileString, hostileNumber.map(String)),
      ),
      { maxLength: 2 },
    );
    return fc
      .tuple(fc.tuple(...declared), extra)
      .chain(([known, unknown]) => {
        const pairs = [...known.filter((pair) => pair !== undefined), ...unknown];
        return fc.tuple(...pairs.map(([name, value]) => fc.tuple(encodings(name), encodings(value))));
      })
      .map((pairs) => (pairs.length === 0 ? '' : `?${pairs.map(([name, value]) => `${name}=${value}`).join('&')}`));
  };

  /**
   * For an operation that takes an Idempotency-Key: none, a fresh one, one shared by many requests, or a malformed one.
   */
  const idempotencyKey = (operation: Operation): fc.Arbitrary<string | undefined> => {
    if (!operation.headerParameters.some((parameter) => parameter.name === IDEMPOTENCY_KEY))
      return fc.constant(undefined);
    const key = fc.oneof(
      { weight: 4, arbitrary: fc.uuid().map((id) => `fuzz-${id}`) },
      { weight: 1, arbitrary: fc.constant('fuzz-shared-key') },
      { weight: 1, arbitrary: fc.constantFrom('', ' ', 'k'.repeat(256), 'a key with spaces') },
    );
    return fc.option(key, { nil: undefined, freq: 2 });
  };

  const requestId = fc.option(
    fc.oneof(
      fc.string({ unit: 'binary-ascii', maxLength: 80 }).filter((text) => /^[\x20-\x7e]*$/.test(text)),
      fc.constant('r'.repeat(1000)),
    ),
    { nil: undefined, freq: 5 },
  );

  const requestFor = (operation: Operation): fc.Arbitrary<FuzzRequest> => {
    const mutating = operation.method !== 'GET';
    // The defects that reach a password hash cost tens of milliseconds each: sent, but less often.
    const kinds = defectsOf(operation);
    const someDefect = () =>
      fc.oneof(...kinds.map((kind) => ({ weight: SLOW_DEFECTS.has(kind) ? 1 : 4, arbitrary: fc.constant(kind) })));
    // A public read that names nothing (the push service's key) has no defect of its own: only its query is hostile.
    const defect: fc.Arbitrary<Defect | undefined> =
      kinds.length === 0
        ? fc.constant(undefined)
        : mutating
          ? someDefect()
          : fc.option(someDefect(), { nil: undefined, freq: 2 });
    return defect.chain((chosen) => {
      const segments = Object.fromEntries(
        operation.pathParameters.map((parameter) => {
          if (chosen === 'malformed path id' && parameter.schema.format === 'uuid')
            return [parameter.name, malformedSegment];
          if (chosen === 'unknown id') return [parameter.name, fc.uuid({ version: 4 })];
          // A well-formed path, so that nothing but the body decides the answer.
          if (chosen === 'nested too deep') return [parameter.name, fc.constantFrom(...ids)];
          return [parameter.name, plausibleSegment];
        }),
      );
      const authorization =
        chosen === 'no token'
          ? fc.constant(undefined)
          : chosen === 'forged token'
            ? refusedAuthorization
            : chosen === 'nested too deep'
              ? validAuthorization
              : anyAuthorization;
      return fc
        .record({
          authorization,
          segments: fc.record(segments),
          // The URL as well: a long query would be refused before the body is read.
          query: chosen === 'nested too deep' ? fc.constant('') : anyQuery(operation),
          body: (chosen && defectBody(operation, chosen)) ?? anyBody(operation),
          requestId,
          key: idempotencyKey(operation),
        })
        .map(({ authorization, segments, query, body, requestId, key }): FuzzRequest => {
          const headers: Record<string, string> = {};
          if (authorization !== undefined) headers.authorization = authorization;
          if (key !== undefined) headers[IDEMPOTENCY_KEY] = key;
          if (body.contentType !== undefined) headers['content-type'] = body.contentType;
          if (requestId !== undefined) headers['x-request-id'] = requestId;
          const request: FuzzRequest = {
            operation: operation.key,
            mutating,
            defect: chosen,
            method: operation.method,
            path: `${fillPath(operation.path, segments)}${query}`,
            headers,
            ...(body.body ? { body: body.body, chunked: body.chunked ?? false } : {}),
          };
          // fast-check prints a failing batch with this, rather than every byte of every body.
          return Object.assign(request, {
            [fc.toStringMethod]: () => `${request.method} ${request.path.slice(0, 60)}`,
          });
        });
    });
  };

  return { requestFor, defectsOf };
}
