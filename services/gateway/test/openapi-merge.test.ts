import { describe, expect, it } from 'vitest';
import { mergeOpenApi } from '../src/openapi-merge.js';

const problem = { type: 'object', properties: { status: { type: 'integer' } } };

describe('mergeOpenApi', () => {
  it('merges paths, schemas and security schemes of every service into one document', () => {
    const merged = mergeOpenApi([
      {
        service: 'users',
        document: {
          openapi: '3.1.0',
          paths: { '/api/users/{id}': { get: {} }, '/api/auth/login': { post: {} } },
          components: {
            schemas: { Author: { type: 'object' }, Problem: problem },
            securitySchemes: { bearerAuth: { type: 'http' } },
          },
          tags: [{ name: 'users' }],
        },
      },
      {
        service: 'comments',
        document: {
          paths: { '/api/recipes/{id}/comments': { get: {}, post: {} } },
          components: { schemas: { Comment: { type: 'object' }, Problem: { type: 'string' } } },
          tags: [{ name: 'comments' }, { name: 'users' }],
        },
      },
    ]);
    expect(Object.keys(merged.paths).sort()).toEqual([
      '/api/auth/login',
      '/api/recipes/{id}/comments',
      '/api/users/{id}',
    ]);
    expect(Object.keys(merged.components.schemas).sort()).toEqual(['Author', 'Comment', 'Problem']);
    expect(merged.components.schemas.Problem).toEqual(problem);
    expect(merged.components.securitySchemes).toEqual({ bearerAuth: { type: 'http' } });
    expect(merged.tags.map((tag) => tag.name)).toEqual(['users', 'comments']);
    expect(merged.openapi).toBe('3.1.0');
  });

  it('keeps only the paths the gateway routes to that service', () => {
    const merged = mergeOpenApi([
      {
        service: 'content',
        document: {
          paths: { '/api/recipes': {}, '/internal/recipes/{id}': {}, '/api/notifications': {}, '/openapi.json': {} },
        },
      },
    ]);
    expect(Object.keys(merged.paths)).toEqual(['/api/recipes']);
  });

  it('leaves out a service without a usable document and says so', () => {
    const merged = mergeOpenApi([
      { service: 'users', document: { paths: { '/api/users/me': {} } } },
      { service: 'collections', document: undefined },
      { service: 'notifications', document: { paths: 'nonsense' } },
    ]);
    expect(Object.keys(merged.paths)).toEqual(['/api/users/me']);
    expect(merged.info.description).toMatch(/collections, notifications/);
  });
});
