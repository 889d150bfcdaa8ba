/** The parts of an OpenAPI 3.1 document the system tests walk: operations, their parameters, bodies and security. */
export interface JsonSchema {
  type?: string;
  properties?: Record<string, JsonSchema>;
  required?: string[];
  items?: JsonSchema;
  anyOf?: JsonSchema[];
  enum?: unknown[];
  pattern?: string;
  format?: string;
  maxLength?: number;
  minItems?: number;
  maxItems?: number;
}

export interface Parameter {
  name: string;
  in: 'path' | 'query' | 'header' | 'cookie';
  required?: boolean;
  schema: JsonSchema;
}

/** Whether an operation needs a token, takes one if given, or has nothing to do with tokens. */
export type TokenUse = 'required' | 'optional' | 'none';

export interface Operation {
  /** `METHOD /path/{template}`, as the document names it. */
  key: string;
  method: string;
  path: string;
  pathParameters: Parameter[];
  queryParameters: Parameter[];
  headerParameters: Parameter[];
  /** The JSON body's schema, when the operation takes a body. */
  body?: JsonSchema;
  token: TokenUse;
}

interface Document {
  paths: Record<
    string,
    Record<
      string,
      {
        parameters?: Parameter[];
        requestBody?: { content: Record<string, { schema: JsonSchema }> };
        security?: Record<string, string[]>[];
      }
    >
  >;
}

/** `[{ bearerAuth }]` requires a token; an empty alternative (`[{}, { bearerAuth }]`) makes it optional. */
function tokenUse(security: Record<string, string[]>[] | undefined): TokenUse {
  if (!security?.some((requirement) => 'bearerAuth' in requirement)) return 'none';
  return security.some((requirement) => Object.keys(requirement).length === 0) ? 'optional' : 'required';
}

export function operationsOf(document: Document): Operation[] {
  return Object.entries(document.paths).flatMap(([path, methods]) =>
    Object.entries(methods).map(([method, operation]) => ({
      key: `${method.toUpperCase()} ${path}`,
      method: method.toUpperCase(),
      path,
      pathParameters: (operation.parameters ?? []).filter((parameter) => parameter.in === 'path'),
      queryParameters: (operation.parameters ?? []).filter((parameter) => parameter.in === 'query'),
      headerParameters: (operation.parameters ?? []).filter((parameter) => parameter.in === 'header'),
      body: operation.requestBody?.content['application/json']?.schema,
      token: tokenUse(operation.security),
    })),
  );
}

/** The gateway's merged document of every public operation. */
export async function publicOperations(gatewayUrl: string): Promise<Operation[]> {
  const response = await fetch(`${gatewayUrl}/docs/json`);
  if (!response.ok) throw new Error(`GET /docs/json answered ${response.status}`);
  return operationsOf((await response.json()) as Document);
}

/** The path with each `{name}` replaced by `segments[name]`, which the caller has already encoded. */
export function fillPath(path: string, segments: Record<string, string>): string {
  return path.replace(/\{(\w+)\}/g, (_whole, name: string) => segments[name] ?? '');
}
