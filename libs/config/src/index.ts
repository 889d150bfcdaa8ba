import { readFileSync } from 'node:fs';
import type { z } from 'zod';

/** Thrown when the environment does not satisfy a service's config schema. */
export class ConfigError extends Error {
  override name = 'ConfigError';
}

/**
 * Parses `env` with `schema`. Every problem is named by its variable, all on one line,
 * so an operator sees at once what to fix.
 */
export function parseConfig<S extends z.ZodType>(schema: S, env: NodeJS.ProcessEnv = process.env): z.infer<S> {
  const result = schema.safeParse(env);
  if (result.success) return result.data;
  const problems = result.error.issues.map((issue) => {
    const variable = issue.path.join('.') || '(environment)';
    const value = typeof issue.path[0] === 'string' ? env[issue.path[0]] : undefined;
    return value === undefined ? `${variable} is required (${issue.message})` : `${variable}: ${issue.message}`;
  });
  throw new ConfigError(`Invalid configuration: ${problems.join('; ')}`);
}

/** `parseConfig` for a process entry point: a bad environment stops the process with one clear line. */
export function loadConfig<S extends z.ZodType>(schema: S, env: NodeJS.ProcessEnv = process.env): z.infer<S> {
  try {
    return parseConfig(schema, env);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    process.stderr.write(`${error.message}\n`);
    process.exit(78); // EX_CONFIG
  }
}

export { env } from './env.js';
export {
  backendEnv,
  exportSourcesEnv,
  internalPortEnv,
  lookupEnv,
  notificationEnv,
  portsEnv,
  serviceEnv,
  sharedStoreEnv,
  signingEnv,
  tokenEnv,
} from './groups.js';

/** Reads a file named by a setting (a key, a secret); a missing file stops the process with one clear line. */
export function readSettingFile(variable: string, path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (error) {
    process.stderr.write(
      `Invalid configuration: ${variable}: cannot read ${path} (${(error as NodeJS.ErrnoException).code ?? 'error'})\n`,
    );
    process.exit(78);
  }
}
