import { randomUUID } from 'node:crypto';
import { createEvent, userCreated, type EventEnvelope } from '@recipes/contracts';
import { createLogger } from '@recipes/logging';

/** Silent unless LOG_LEVEL is set, e.g. LOG_LEVEL=debug to watch reconnects. */
export const logger = createLogger({ service: 'messaging-test', level: process.env.LOG_LEVEL ?? 'silent' });

export function userEvent(correlationId = `req-${randomUUID()}`): EventEnvelope {
  return createEvent(
    userCreated,
    { id: randomUUID(), username: 'ada', avatarUrl: null, revision: 0 },
    { producer: 'users', correlationId },
  );
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
