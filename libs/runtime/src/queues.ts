import { eventsProducedBy } from '@recipes/contracts';
import type { ConsumerQueue } from '@recipes/messaging';

/** A service's one queue on the events exchange (docs/architecture.md §5). */
export const queueOf = (exchange: string, service: string) => `${exchange}.${service}`;

/**
 * The queues of the consumers the catalogue lists for what `producer` publishes, each with the types it takes from it.
 */
export function consumerQueuesOf(producer: string, exchange: string): ConsumerQueue[] {
  const typesByConsumer = new Map<string, string[]>();
  for (const definition of eventsProducedBy(producer)) {
    for (const consumer of definition.consumers)
      typesByConsumer.set(consumer, [...(typesByConsumer.get(consumer) ?? []), definition.type]);
  }
  return [...typesByConsumer].map(([consumer, types]) => ({
    queue: queueOf(exchange, consumer),
    bindings: [...new Set(types)],
  }));
}
