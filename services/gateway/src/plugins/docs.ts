import swaggerUi from '@fastify/swagger-ui';
import { type App, sharedAnswer } from '@recipes/http';
import { type MergedDocument, mergeOpenApi } from '../openapi-merge.js';
import { services } from '../route-table.js';
import type { Upstreams } from '../upstreams.js';

export interface DocsOptions {
  upstreams: Upstreams;
  /** Per address, when fetching a service's `/openapi.json`. */
  timeoutMs: number;
  /** How long a merged document is served before the services are asked again. */
  cacheMs: number;
}

/** A service's own document from the first of its addresses that serves one; undefined when none does. */
async function documentOf(upstreams: Upstreams, urls: readonly string[], timeoutMs: number): Promise<unknown> {
  for (const url of urls) {
    try {
      const { status, text } = await upstreams.get(url, '/openapi.json', timeoutMs);
      if (status === 200) return JSON.parse(text);
    } catch {
      // Down, slow or not JSON: try the next address; with none left the service is left out.
    }
  }
  return undefined;
}

/**
 * Swagger UI at `/docs` over one document merged from every service's `/openapi.json`, also served
 * at `/docs/json` and `/docs/yaml`.
 */
export default async function docsPlugin(app: App, { upstreams, timeoutMs, cacheMs }: DocsOptions) {
  const mergedDocument = sharedAnswer(
    async () =>
      mergeOpenApi(
        await Promise.all(
          services.map(async (service) => ({
            service,
            document: await documentOf(upstreams, upstreams.urls[service], timeoutMs),
          })),
        ),
      ),
    cacheMs,
  );
  let latest: MergedDocument | undefined;

  await app.register(swaggerUi, {
    routePrefix: '/docs',
    // swagger-ui asks for the document synchronously (transformSpecification), so it is fetched just before.
    uiHooks: {
      preHandler: async () => {
        latest = await mergedDocument();
      },
    },
    transformSpecificationClone: false,
    transformSpecification: (own) => latest ?? own,
  });
}
