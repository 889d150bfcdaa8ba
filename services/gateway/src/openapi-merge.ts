import { z } from 'zod';
import { type Service, serviceFor } from './route-table.js';

/** The parts of a service's OpenAPI document that the merge reads; the rest is kept as is. */
const serviceDocumentSchema = z.looseObject({
  paths: z.record(z.string(), z.unknown()).optional(),
  components: z
    .looseObject({
      schemas: z.record(z.string(), z.unknown()).optional(),
      securitySchemes: z.record(z.string(), z.unknown()).optional(),
    })
    .optional(),
  tags: z.array(z.looseObject({ name: z.string() })).optional(),
});

export interface MergedDocument {
  openapi: string;
  info: { title: string; version: string; description: string };
  paths: Record<string, unknown>;
  components: { schemas: Record<string, unknown>; securitySchemes: Record<string, unknown> };
  tags: { name: string }[];
}

/**
 * One document for the whole public API. A service contributes only the paths the gateway routes to it,
 * so the document never shows an endpoint the gateway would not forward. A service whose document is
 * missing or malformed is left out, and named in the description.
 */
export function mergeOpenApi(documents: ReadonlyArray<{ service: Service; document: unknown }>): MergedDocument {
  const merged: MergedDocument = {
    openapi: '3.1.0',
    info: { title: 'Recipe Sharing API', version: '1.0.0', description: '' },
    paths: {},
    components: { schemas: {}, securitySchemes: {} },
    tags: [],
  };
  const missing: Service[] = [];
  for (const { service, document } of documents) {
    const parsed = serviceDocumentSchema.safeParse(document);
    if (!parsed.success) {
      missing.push(service);
      continue;
    }
    const { paths = {}, components = {}, tags = [] } = parsed.data;
    for (const [path, item] of Object.entries(paths)) {
      if (serviceFor(path) === service) merged.paths[path] = item;
    }
    // Shared schemas (problem details, the author summary) come from one contract package: first wins.
    merged.components.schemas = { ...components.schemas, ...merged.components.schemas };
    merged.components.securitySchemes = { ...components.securitySchemes, ...merged.components.securitySchemes };
    for (const tag of tags) if (!merged.tags.some((known) => known.name === tag.name)) merged.tags.push(tag);
  }
  merged.info.description =
    'Every public endpoint, served through the gateway.' +
    (missing.length > 0 ? ` Not included (service unavailable): ${missing.join(', ')}.` : '');
  return merged;
}
