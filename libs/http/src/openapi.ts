import swagger from '@fastify/swagger';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { jsonSchemaTransform, jsonSchemaTransformObject } from 'fastify-type-provider-zod';

/**
 * OpenAPI generated from the routes' zod schemas, served at `/openapi.json` for the gateway to merge.
 * Only `/api` routes are public; internal and health routes stay out of the document.
 */
async function openApiPlugin(app: FastifyInstance, { title, description }: { title: string; description: string }) {
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: { title, description, version: '1.0.0' },
      components: {
        securitySchemes: { bearerAuth: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' } },
      },
    },
    transform: (input) =>
      input.url.startsWith('/api/') ? jsonSchemaTransform(input) : { schema: { ...input.schema, hide: true }, url: input.url },
    transformObject: jsonSchemaTransformObject,
  });
  app.get('/openapi.json', { schema: { hide: true }, logLevel: 'warn' }, async () => app.swagger());
}

export default fp(openApiPlugin, { name: 'openapi' });
