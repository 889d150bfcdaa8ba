import type { EventDefinition } from './envelope.js';
import { userCreated, userUpdated } from './users.js';

export * from './envelope.js';
export * from './users.js';

/** Every event in the system. A service may only publish or consume what is listed here. */
export const eventCatalogue: readonly EventDefinition[] = [userCreated, userUpdated];
