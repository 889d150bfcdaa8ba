import fc from 'fast-check';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import {
  currentTraceparent,
  inSpan,
  startTracing,
  traceFields,
  tracingOn,
  tracingRequested,
  withTraceparent,
} from '../src/index.js';

/** Where @opentelemetry/api keeps what an SDK registers (its tracer provider, propagator, context manager). */
const registeredGlobals = () =>
  Object.getOwnPropertySymbols(globalThis).filter((symbol) => symbol.description?.startsWith('opentelemetry.js.api'));

describe('tracing', () => {
  it('is asked for by an OTLP endpoint, unless OTEL_SDK_DISABLED is true', () => {
    fc.assert(
      fc.property(
        fc.option(fc.constantFrom('http://127.0.0.1:4318', 'http://collector:4318'), { nil: undefined }),
        fc.option(fc.constantFrom('true', 'TRUE', ' true ', 'false', ''), { nil: undefined }),
        (endpoint, disabled) => {
          const env = {
            ...(endpoint ? { OTEL_EXPORTER_OTLP_ENDPOINT: endpoint } : {}),
            ...(disabled === undefined ? {} : { OTEL_SDK_DISABLED: disabled }),
          };
          expect(tracingRequested(env)).toBe(endpoint !== undefined && disabled?.trim().toLowerCase() !== 'true');
        },
      ),
    );
  });

  it('registers nothing and patches nothing when off, and every helper just runs its work', async () => {
    delete process.env.OTEL_EXPORTER_OTLP_ENDPOINT;
    await startTracing('test');

    expect(tracingOn()).toBe(false);
    expect(registeredGlobals()).toEqual([]);
    // What the pg instrumentation would have wrapped (shimmer marks a wrapped function).
    expect(pg.Client.prototype.query).not.toHaveProperty('__wrapped');
    expect(currentTraceparent()).toBeUndefined();
    expect(traceFields()).toEqual({});
    expect(withTraceparent('00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01', () => 'ran')).toBe('ran');
    expect(
      await inSpan('work', async () => 'ran', {
        traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01',
      }),
    ).toBe('ran');
  });
});
