/** OpenAPI security of a route that needs a token. */
export const tokenRequired: Array<Record<string, string[]>> = [{ bearerAuth: [] }];

/** OpenAPI security of a route where a token is optional: none is fine, a bad one is 401 (docs/api.md §2). */
export const tokenOptional: Array<Record<string, string[]>> = [{}, { bearerAuth: [] }];
