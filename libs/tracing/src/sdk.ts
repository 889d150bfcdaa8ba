// Loaded by startTracing only when traces are asked for: the one place that imports the SDK.
import { register } from 'node:module';
import * as api from '@opentelemetry/api';
import { FastifyOtelInstrumentation } from '@fastify/otel';
import { AmqplibInstrumentation } from '@opentelemetry/instrumentation-amqplib';
import { HttpInstrumentation } from '@opentelemetry/instrumentation-http';
import { PgInstrumentation } from '@opentelemetry/instrumentation-pg';
import { UndiciInstrumentation } from '@opentelemetry/instrumentation-undici';
import { NodeSDK } from '@opentelemetry/sdk-node';

/**
 * Starts the NodeSDK, which reads the standard OTEL_* variables itself: the exporter
 * (OTEL_EXPORTER_OTLP_ENDPOINT, OTEL_EXPORTER_OTLP_PROTOCOL http/protobuf or http/json), the sampler
 * (OTEL_TRACES_SAMPLER), the batch (OTEL_BSP_*), the name (OTEL_SERVICE_NAME, else `service`). The hook
 * lets the instrumentations patch the modules the process imports from here on, ES modules included.
 * Spans still in the batch are sent as the process ends on SIGTERM or SIGINT.
 */
export async function startSdk(service: string): Promise<typeof api> {
  register('@opentelemetry/instrumentation/hook.mjs', import.meta.url);
  const sdk = new NodeSDK({
    serviceName: process.env.OTEL_SERVICE_NAME || service,
    instrumentations: [
      new HttpInstrumentation(),
      new UndiciInstrumentation(),
      new FastifyOtelInstrumentation({
        registerOnInitialization: true,
        // The client as the service believes it (TRUST_PROXY): the HTTP span's own client attribute takes the
        // first X-Forwarded-For entry from anyone, which any client can write.
        requestHook: (span, request) => span.setAttribute('client.address', request.ip),
      }),
      new PgInstrumentation(),
      new AmqplibInstrumentation(),
    ],
  });
  sdk.start();
  process.once('beforeExit', () => void sdk.shutdown());
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    process.prependListener(signal, () => void sdk.shutdown().catch(() => undefined));
  }
  return api;
}
