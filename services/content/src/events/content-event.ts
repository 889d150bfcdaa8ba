import { createEvent, type EventData, type EventDefinition, type EventEnvelope } from '@recipes/contracts';

/** An event this service tells the others, caused by the request `correlationId`. */
export function contentEvent<D extends EventDefinition>(
  definition: D,
  data: EventData<D>,
  correlationId: string,
): EventEnvelope<EventData<D>> {
  return createEvent(definition, data, { producer: 'content', correlationId });
}
