import type { EventData, EventDefinition, EventEnvelope } from '@recipes/contracts';
import { type Logger, withTrailId } from '@recipes/logging';

/** What a service does with one event type at one version. */
export interface EventHandler {
  definition: EventDefinition;
  handle(event: EventEnvelope, log: Logger): Promise<void>;
}

/** Binds a handler to an event definition; the data is checked against the contract before `run` sees it. */
export function on<D extends EventDefinition>(
  definition: D,
  run: (data: EventData<D>, event: EventEnvelope, log: Logger) => Promise<void>,
): EventHandler {
  return {
    definition,
    handle: (event, log) => run(definition.data.parse(event.data) as EventData<D>, event, log),
  };
}

/** One handle function for a service's queue: routes each event to its handler by type and version. */
export function dispatcher(handlers: EventHandler[]): (event: EventEnvelope, log: Logger) => Promise<void> {
  const byKey = new Map(handlers.map((h) => [`${h.definition.type}@${h.definition.version}`, h]));
  return async (event, log) => {
    const handler = byKey.get(`${event.type}@${event.version}`);
    // A type bound to this queue at a version this service does not know yet: nothing it can do.
    if (!handler) throw new Error(`no handler for ${event.type} version ${event.version}`);
    // Look-ups the handler makes in other services carry the event's correlation id.
    await withTrailId(event.correlationId, () => handler.handle(event, log));
  };
}
