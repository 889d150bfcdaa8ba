import type { backendEnv, internalPortEnv, portsEnv, signingEnv, tokenEnv } from '@recipes/config';
import type { z } from 'zod';

type Settings<Shape extends z.ZodRawShape> = z.infer<z.ZodObject<Shape>>;
type Ports = ReturnType<typeof portsEnv> & ReturnType<typeof internalPortEnv>;

/**
 * The settings libs/runtime reads, as @recipes/config's groups declare them: a service's schema
 * (src/config.ts) holds `backendEnv`, `tokenEnv` and a `PORT`; the metrics and internal ports (where
 * `startBackendService` serves `/metrics` and the routes for the other services) and the signing key
 * (`signingEnv`, only where tokens are issued) where it has them.
 */
export type BackendConfig = Settings<typeof backendEnv & typeof tokenEnv> &
  Pick<Settings<Ports>, 'PORT'> &
  Partial<Settings<Omit<Ports, 'PORT'> & Pick<typeof signingEnv, 'JWT_PRIVATE_KEY_FILE'>>>;
