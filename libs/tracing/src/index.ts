// Traces are off unless OTEL_EXPORTER_OTLP_ENDPOINT is set. Off, nothing of OpenTelemetry is loaded: no
// SDK, no module patched, and every function here returns at its first line. On, `startTracing` (called
// by each process's entry before it imports the service) loads the SDK and the instrumentations from
// sdk.ts, and the API it keeps in `api` is what the functions below use.
import type * as OpenTelemetryApi from '@opentelemetry/api';

let api: typeof OpenTelemetryApi | undefined;

/** Whether the environment asks for traces: an OTLP endpoint, and the SDK not disabled. */
export function tracingRequested(env: NodeJS.ProcessEnv = process.env): boolean {
  return Boolean(env.OTEL_EXPORTER_OTLP_ENDPOINT) && env.OTEL_SDK_DISABLED?.trim().toLowerCase() !== 'true';
}

/** Whether this process started the SDK. */
export function tracingOn(): boolean {
  return api !== undefined;
}

/**
 * Starts the SDK when `tracingRequested`, with `service` as the service's name unless OTEL_SERVICE_NAME
 * says otherwise. Must run before the process imports what it instruments (http, fastify, pg, amqplib):
 * an entry awaits it, then imports its server.
 */
export async function startTracing(service: string): Promise<void> {
  if (api || !tracingRequested()) return;
  const { startSdk } = await import('./sdk.js');
  api = await startSdk(service);
}

/** The W3C traceparent of the active span; undefined when there is none, or tracing is off. */
export function currentTraceparent(): string | undefined {
  if (!api) return undefined;
  const carrier: Record<string, string> = {};
  api.propagation.inject(api.context.active(), carrier);
  return carrier.traceparent;
}

/** Runs `work` in the context a stored traceparent names (an outbox row's), or as it is without one. */
export function withTraceparent<T>(traceparent: string | null | undefined, work: () => T): T {
  if (!api || !traceparent) return work();
  return api.context.with(api.propagation.extract(api.ROOT_CONTEXT, { traceparent }), work);
}

/**
 * Runs `work` in a span of its own, ended when `work` returns or settles: under the active span, or, when
 * there is none, under the traceparent of `headers` (a message's, when no instrumentation consumed it in a
 * span). Just `work()` when tracing is off.
 */
export function inSpan<T>(name: string, work: () => T, headers?: Record<string, unknown>): T {
  if (!api) return work();
  const { context, propagation, trace, SpanStatusCode } = api;
  const active = context.active();
  const parent = headers && !trace.getSpan(active) ? propagation.extract(active, headers) : active;
  const span = trace.getTracer('@recipes/tracing').startSpan(name, undefined, parent);
  const fail = (error: unknown) => {
    span.recordException(error instanceof Error ? error : String(error));
    span.setStatus({ code: SpanStatusCode.ERROR });
  };
  try {
    const result = context.with(trace.setSpan(parent, span), work);
    if (result instanceof Promise) {
      return result.then(
        (value) => (span.end(), value),
        (error: unknown) => {
          fail(error);
          span.end();
          throw error;
        },
      ) as T;
    }
    span.end();
    return result;
  } catch (error) {
    fail(error);
    span.end();
    throw error;
  }
}

/** The active span's ids for a log line (`trace_id`, `span_id`); nothing outside a span or with tracing off. */
export function traceFields(): { trace_id?: string; span_id?: string } {
  const span = api?.trace.getActiveSpan();
  if (!span) return {};
  const { traceId, spanId } = span.spanContext();
  return { trace_id: traceId, span_id: spanId };
}
