import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import swaggerUi from '@fastify/swagger-ui';
import type { App } from '@recipes/http';

export interface DocsOptions {
  /** The merged document the build wrote (`OPENAPI_DOCUMENT`). */
  documentFile: string;
}

/**
 * The API's one OpenAPI document, merged from every service's at build time (scripts/openapi.mjs, with
 * `mergeOpenApi` of ../openapi-merge.ts), the same file the lint checks: served whole at `/openapi.json`, and with
 * Swagger UI at `/docs` (also `/docs/json` and `/docs/yaml`), whatever service is up. Asked of the services as they
 * run, it left out one that was down.
 */
export default async function docsPlugin(app: App, { documentFile }: DocsOptions) {
  const path = resolve(documentFile);
  let document: Record<string, unknown>;
  try {
    document = JSON.parse(await readFile(path, 'utf8')) as Record<string, unknown>;
  } catch (error) {
    throw new Error(
      `the OpenAPI document ${path} could not be read (${(error as Error).message}): ` +
        '`npm run build` writes it (OPENAPI_DOCUMENT names another)',
      { cause: error },
    );
  }
  app.get('/openapi.json', { schema: { hide: true }, logLevel: 'warn' }, async () => document);
  await app.register(swaggerUi, {
    routePrefix: '/docs',
    transformSpecificationClone: false,
    transformSpecification: () => document,
  });
}
