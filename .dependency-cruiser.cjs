// Which package may import which (`npm run lint:boundaries`, part of `npm run lint`; its test is
// libs/testing/test/boundaries.test.ts). Read with dependency-cruiser, which resolves `@recipes/x` to
// libs/x/src through the workspace links, sees type-only imports too, and finds import cycles.

/**
 * The libraries' layers, as their package.json `dependencies` declare them (the test holds the two equal,
 * and the graph free of cycles): each library's src may import the libraries listed here, and no other.
 *   bottom:  tracing, contracts, config, metrics (none of ours); logging, db (tracing)
 *   above:   messaging, http (db's word on which errors are passing)
 *   above:   auth (http), outbox (messaging, db)
 *   above:   idempotency (auth), directory (outbox); no HTTP, no runtime in the directory
 *   above:   runtime, over all but directory and testing
 *   top:     testing, which may be given any library; no library's src and no service's src imports it.
 * A library never imports a service. Tests (libs/x/test) may import what they need.
 */
const allowedLibraryImports = {
  tracing: [],
  contracts: [],
  config: [],
  logging: ['tracing'],
  db: ['tracing'],
  metrics: [],
  messaging: ['contracts', 'logging', 'tracing'],
  http: ['contracts', 'db', 'logging', 'metrics'],
  auth: ['http'],
  outbox: ['contracts', 'db', 'logging', 'messaging', 'tracing'],
  idempotency: ['auth', 'db', 'http'],
  directory: ['contracts', 'db', 'logging', 'messaging', 'outbox'],
  runtime: [
    'auth',
    'config',
    'contracts',
    'db',
    'http',
    'idempotency',
    'logging',
    'messaging',
    'metrics',
    'outbox',
    'tracing',
  ],
  testing: ['auth', 'config', 'contracts', 'db', 'http', 'logging', 'messaging', 'runtime'],
};

/** The one service that is all HTTP (a proxy, its plugins and docs): the rule on HTTP in domain code is not for it. */
const httpServices = ['gateway'];

const alternatives = (names) => names.join('|');

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    ...Object.entries(allowedLibraryImports).map(([library, allowed]) => ({
      name: `layers-${library}`,
      severity: 'error',
      comment: `libs/${library}/src may import only ${allowed.length > 0 ? allowed.map((name) => `@recipes/${name}`).join(', ') : 'none of our packages'}`,
      from: { path: `^libs/${library}/src/` },
      to: { path: '^libs/[^/]+/', pathNot: `^libs/(${alternatives([library, ...allowed])})/` },
    })),
    {
      name: 'no-services-in-libs',
      severity: 'error',
      comment: 'a library never imports a service: services are built on libraries, not the other way round',
      from: { path: '^libs/' },
      to: { path: '^services/' },
    },
    {
      name: 'no-testing-in-services',
      severity: 'error',
      comment: "a service's src never imports @recipes/testing: it is for tests",
      from: { path: '^services/[^/]+/src/' },
      to: { path: '^libs/testing/' },
    },
    {
      name: 'no-cross-service',
      severity: 'error',
      comment:
        "a service never imports another service's files: what they share is an event, an internal route, or a library",
      from: { path: '^services/([^/]+)/' },
      to: { path: '^services/[^/]+/', pathNot: '^services/$1/' },
    },
    {
      name: 'packages-by-name',
      severity: 'error',
      comment: "another package's files are imported through its name (@recipes/x), never through a relative path",
      from: { path: '^(libs|services)/([^/]+)/' },
      to: { path: '^(libs|services)/[^/]+/', pathNot: '^$1/$2/', dependencyTypes: ['local'] },
    },
    {
      name: 'http-only-in-routes',
      severity: 'error',
      comment:
        "a service's domain and repository code throws DomainErrors and knows nothing of HTTP: only " +
        'src/routes/** and src/service.ts import @recipes/http, @recipes/auth, fastify, fastify-* or @fastify/*',
      from: {
        path: '^services/[^/]+/src/',
        pathNot: [
          `^services/(${alternatives(httpServices)})/`,
          '^services/[^/]+/src/routes/',
          '^services/[^/]+/src/service\\.ts$',
        ],
      },
      to: { path: ['^libs/(http|auth)/', '(^|/)node_modules/(fastify|fastify-[^/]+|@fastify/[^/]+)/'] },
    },
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'no import cycles, within a package or across packages',
      from: { path: '^(libs|services)/[^/]+/src/' },
      // A cycle closed only by an `import type` is gone at run time: it is the next rule's.
      to: { circular: true, viaOnly: { dependencyTypesNot: ['type-only'] } },
    },
    {
      name: 'no-circular-types',
      severity: 'error',
      comment: 'no import cycles through types either: the types a cycle shares belong in a file both import',
      from: { path: '^(libs|services)/[^/]+/src/' },
      to: { circular: true, via: { dependencyTypes: ['type-only'] } },
    },
    {
      name: 'not-to-unresolvable',
      severity: 'error',
      comment: 'an import that resolves to nothing is a typo or a missing dependency',
      from: { path: '^(libs|services)/[^/]+/src/' },
      to: { couldNotResolve: true },
    },
  ],
  options: {
    // node_modules is not excluded, only not followed: an import of fastify must be seen to be refused.
    exclude: { path: '(^|/)(dist|coverage)/' },
    doNotFollow: { path: '(^|/)node_modules/' },
    // `import type` counts: domain code may not even name an HTTP type.
    tsPreCompilationDeps: true,
    enhancedResolveOptions: {
      // The workspace packages' TypeScript sources, as vitest resolves them.
      conditionNames: ['@recipes/source', 'import', 'types', 'require', 'node', 'default'],
      extensions: ['.ts', '.js', '.mjs', '.cjs', '.json', '.d.ts'],
      exportsFields: ['exports'],
      mainFields: ['module', 'main', 'types'],
    },
  },
};

// For the test that holds the graph equal to the package.json files; not enumerable, as dependency-cruiser
// refuses a configuration with keys it does not know.
Object.defineProperty(module.exports, 'allowedLibraryImports', { value: allowedLibraryImports, enumerable: false });
