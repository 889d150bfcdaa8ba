import { startTracing } from '@recipes/tracing';

// Traces, when OTEL_EXPORTER_OTLP_ENDPOINT asks for them, start before the modules they instrument load.
await startTracing('content');
const { runService } = await import('@recipes/runtime');
const { contentService } = await import('./service.js');
await runService(contentService);
