import { v7 as uuidv7 } from 'uuid';
import { z } from 'zod';

/** The envelope every event travels in (docs/api.md §8). `data` is checked against the event type's own schema. */
export const eventEnvelopeSchema = z.object({
  id: z.uuid(),
  type: z.string().min(1),
  version: z.number().int().positive(),
  occurredAt: z.iso.datetime(),
  producer: z.string().min(1),
  correlationId: z.string().min(1),
  data: z.unknown(),
});

export type EventEnvelope<Data = unknown> = Omit<z.infer<typeof eventEnvelopeSchema>, 'data'> & { data: Data };

/** One event type at one version: its routing key, its data schema, who produces it and who consumes it. */
export interface EventDefinition<Type extends string = string, Schema extends z.ZodType = z.ZodType> {
  type: Type;
  version: number;
  data: Schema;
  producer: string;
  consumers: readonly string[];
  description: string;
}

export function defineEvent<Type extends string, Schema extends z.ZodType>(
  definition: EventDefinition<Type, Schema>,
): EventDefinition<Type, Schema> {
  return definition;
}

export type EventData<D extends EventDefinition> = z.infer<D['data']>;

/** Builds an envelope for `definition`, validating the data as the producer's last line of defence. */
export function createEvent<D extends EventDefinition>(
  definition: D,
  data: EventData<D>,
  context: { producer: string; correlationId: string },
): EventEnvelope<EventData<D>> {
  return {
    id: newId(),
    type: definition.type,
    version: definition.version,
    occurredAt: new Date().toISOString(),
    producer: context.producer,
    correlationId: context.correlationId,
    data: definition.data.parse(data) as EventData<D>,
  };
}

/** A new time-ordered (v7) UUID: ids sort by creation, which keeps b-tree inserts local. */
export function newId(): string {
  return uuidv7();
}
