/** A line a process of the system logged (pino JSON), with the fields the system tests look at. */
export interface LogLine {
  level?: string;
  requestId?: string;
  msg?: string;
  err?: { type?: string; message?: string; stack?: string };
  res?: { statusCode?: number };
}

/** The JSON lines of a process's log, skipping any that are not JSON. */
export function logOf(process: { lines: readonly string[] }): LogLine[] {
  return process.lines.flatMap((line) => {
    try {
      return [JSON.parse(line) as LogLine];
    } catch {
      return [];
    }
  });
}
