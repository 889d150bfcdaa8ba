import { startTracing } from '@recipes/tracing';

// Traces, when OTEL_EXPORTER_OTLP_ENDPOINT asks for them, start before the modules they instrument load.
await startTracing('collections');
const { runService } = await import('@recipes/runtime');
const { collectionsService } = await import('./service.js');
await runService(collectionsService);
