import { pino, type Logger, type LoggerOptions } from 'pino';

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

/** JSON lines with ISO time, the level as a word, and the service name on every line. */
export function loggerOptions({ service, level = 'info' }: LoggerSettings): LoggerOptions {
  return {
    level,
    base: { service },
    timestamp: pino.stdTimeFunctions.isoTime,
    formatters: { level: (label) => ({ level: label }) },
    redact: { paths: redactedPaths, censor: '[redacted]' },
  };
}

export function createLogger(settings: LoggerSettings): Logger {
  const options = loggerOptions(settings);
  return settings.destination ? pino(options, settings.destination) : pino(options);
}

/** The logger for everything one event handler does: each line carries the event and its correlation id. */
export function eventLogger(
  logger: Logger,
  event: { id: string; type: string; correlationId: string },
): Logger {
  return logger.child({ eventId: event.id, eventType: event.type, correlationId: event.correlationId });
}
export { currentTrailId, withTrailId } from './trail.js';
