/** The frames of a `text/event-stream` (HTML Living Standard, server-sent events). */
export const sse = {
  retry: (ms: number) => `retry: ${ms}\n\n`,
  /** `data` is JSON on one line, so it never holds the newline that would end the field. */
  event: (name: string, data: unknown, id?: string) =>
    `${id === undefined ? '' : `id: ${id}\n`}event: ${name}\ndata: ${JSON.stringify(data)}\n\n`,
  comment: (text: string) => `: ${text}\n\n`,
};

export const SSE_HEADERS = {
  'content-type': 'text/event-stream; charset=utf-8',
  'cache-control': 'no-cache, no-transform',
  // Proxies that buffer responses (nginx) pass this one through as it comes.
  'x-accel-buffering': 'no',
};
