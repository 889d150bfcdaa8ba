import { startTracing } from '@recipes/tracing';

// Traces, when OTEL_EXPORTER_OTLP_ENDPOINT asks for them, start before the modules they instrument load.
await startTracing('gateway');
await import('./main.js');
