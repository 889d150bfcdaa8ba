import { pino, type Logger, type LoggerOptions } from 'pino';
import { traceFields, tracingOn } from '@recipes/tracing';
import { REDACTED, urlForLog } from './url.js';

export type { Logger } from 'pino';

/** Fields whose values never reach a log line. */
export const redactedPaths = [
  'req.headers.authorization',
  'req.headers.cookie',
  'password',
  '*.password',
  'token',
  '*.token',
];

export interface LoggerSettings {
  service: string;
  level?: LoggerOptions['level'];
  /** Where lines go; stdout when omitted. Tests pass a stream to read them back. */
  destination?: pino.DestinationStream;
}

interface RequestForLog {
  method?: string;
  url?: string;
  /** The client's address as the service believes it (TRUST_PROXY), not necessarily the peer's. */
  remoteAddress?: string;
}

/**
 * A request as a line shows it: its method, its URL without what may be a credential (see url.ts), and the
 * client's address where the line gives it. Fastify's own serializer, which this replaces, would show the URL as
 * sent. Headers and bodies never.
 */
function requestForLog(request: RequestForLog): RequestForLog {
  return {
    method: request.method,
    url: request.url === undefined ? undefined : urlForLog(request.url),
    ...(request.remoteAddress === undefined ? {} : { remoteAddress: request.remoteAddress }),
  };
}

/** JSON lines with ISO time, the level as a word, and the service name on every line. */
export function loggerOptions({ service, level = 'info' }: LoggerSettings): LoggerOptions {
  return {
    level,
    base: { service },
    timestamp: pino.stdTimeFunctions.isoTime,
    formatters: { level: (label) => ({ level: label }) },
    serializers: { req: requestForLog },
    redact: { paths: redactedPaths, censor: REDACTED },
    // trace_id and span_id of the active span on each line, so logs and traces join; no mixin with tracing off.
    ...(tracingOn() ? { mixin: traceFields } : {}),
  };
}

export function createLogger(settings: LoggerSettings): Logger {
  const options = loggerOptions(settings);
  return settings.destination ? pino(options, settings.destination) : pino(options);
}

/** The logger for everything one event handler does: each line carries the event and its correlation id. */
export function eventLogger(logger: Logger, event: { id: string; type: string; correlationId: string }): Logger {
  return logger.child({ eventId: event.id, eventType: event.type, correlationId: event.correlationId });
}
export { deferredChild } from './deferred-child.js';
export { currentTrailId, withTrailId } from './trail.js';
export { REDACTED, urlForLog } from './url.js';
