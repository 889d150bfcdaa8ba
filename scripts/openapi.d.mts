/** A problem Redocly reports: its rule, `error` or `warn`, its message and where in the document. */
export interface LintProblem {
  ruleId: string;
  severity: 'error' | 'warn';
  message: string;
  pointer: string | undefined;
}

export const DEFAULT_DOCUMENT: string;
/** A service's own OpenAPI document, as its `/openapi.json` serves it (from its built code). */
export function serviceDocument(service: string): Promise<Record<string, unknown>>;
/** The gateway's merged document, as `/docs/json` serves it with every service up. */
export function mergedDocument(): Promise<Record<string, unknown>>;
export function writeDocument(document: object, out?: string): string;
/** Redocly's lint of the document at `file` with the project's redocly.yaml. */
export function lintDocument(file: string, options?: { config?: string }): LintProblem[];
