/** One event of a `text/event-stream`, as `EventSource` would dispatch it, or a comment line. */
export interface StreamEvent {
  event: string;
  data: string;
  id?: string;
  retry?: number;
  /** A comment line (`: text`), which `EventSource` ignores. */
  comment?: string;
}

export interface EventStreamClient {
  status: number;
  headers: Headers;
  /** Everything received so far, in order. */
  received: StreamEvent[];
  /** Resolves with the first received event after index `from` that `matches`, or fails after `timeoutMs`. */
  next(matches: (event: StreamEvent) => boolean, timeoutMs?: number, from?: number): Promise<StreamEvent>;
  /** Resolves once the server has ended the stream. */
  ended: Promise<void>;
  close(): void;
}

/** Parses the frames of an event stream (HTML Living Standard, server-sent events), one block at a time. */
export function parseEventStream(block: string): StreamEvent | undefined {
  const lines = block.split('\n');
  if (lines.every((line) => line.startsWith(':')))
    return { event: '', data: '', comment: lines.map((line) => line.slice(1).trim()).join('\n') };
  const event: StreamEvent = { event: 'message', data: '' };
  const data: string[] = [];
  for (const line of lines) {
    const colon = line.indexOf(':');
    const field = colon === -1 ? line : line.slice(0, colon);
    const value = colon === -1 ? '' : line.slice(colon + 1).replace(/^ /, '');
    if (field === 'event') event.event = value;
    else if (field === 'data') data.push(value);
    else if (field === 'id') event.id = value;
    else if (field === 'retry') event.retry = Number(value);
  }
  event.data = data.join('\n');
  return event.retry !== undefined && data.length === 0 ? { ...event, event: 'retry' } : event;
}

/** Opens `url` as a stream of events and collects them as they come; a non-2xx answer is read whole. */
export async function openEventStream(url: string, headers: Record<string, string> = {}): Promise<EventStreamClient> {
  const abort = new AbortController();
  const response = await fetch(url, { headers: { accept: 'text/event-stream', ...headers }, signal: abort.signal });
  const received: StreamEvent[] = [];
  const waiters = new Set<() => void>();
  const notify = () => {
    for (const waiter of waiters) waiter();
  };
  let finished = false;
  const ended = (async () => {
    if (!response.body) return;
    const decoder = new TextDecoder();
    let buffer = '';
    try {
      for await (const chunk of response.body) {
        buffer += decoder.decode(chunk as Uint8Array, { stream: true });
        let end: number;
        while ((end = buffer.indexOf('\n\n')) !== -1) {
          const parsed = parseEventStream(buffer.slice(0, end));
          buffer = buffer.slice(end + 2);
          if (parsed) received.push(parsed);
        }
        notify();
      }
    } catch {
      // Closed by this side.
    }
    finished = true;
    notify();
  })();

  return {
    status: response.status,
    headers: response.headers,
    received,
    ended,
    next(matches, timeoutMs = 5_000, from = 0) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const found = received.slice(from).find(matches);
          if (found) {
            cleanup();
            resolve(found);
          } else if (finished) {
            cleanup();
            reject(new Error(`the stream ended without the event; received: ${JSON.stringify(received)}`));
          }
        };
        const timer = setTimeout(() => {
          cleanup();
          reject(new Error(`no such event within ${timeoutMs} ms; received: ${JSON.stringify(received)}`));
        }, timeoutMs);
        const cleanup = () => {
          clearTimeout(timer);
          waiters.delete(check);
        };
        waiters.add(check);
        check();
      });
    },
    close: () => abort.abort(),
  };
}

export interface FollowedStream {
  /** The ids of the notifications seen, in order, across every reopening. */
  seen: string[];
  /**
   * Resolves once the first stream's first frame (the unread count) has come: what is stored from then on, it must see.
   */
  ready: Promise<void>;
  /** How many times a stream was opened (more than once: an instance stopped under it). */
  opened(): number;
  stop(): Promise<void>;
}

/**
 * A notification stream at `url`, opened again with Last-Event-ID whenever it ends, after a pause as
 * EventSource does. `failed` hears each opening that failed or was not 200.
 */
export function followNotifications(
  url: string,
  headers: Record<string, string>,
  failed: (why: string) => void,
): FollowedStream {
  const seen: string[] = [];
  const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
  let stopped = false;
  let current: EventStreamClient | undefined;
  let opened = 0;
  let markReady: () => void = () => undefined;
  const ready = new Promise<void>((resolve) => (markReady = resolve));
  const done = (async () => {
    while (!stopped) {
      const lastId = seen.at(-1);
      const stream = await openEventStream(url, { ...headers, ...(lastId ? { 'last-event-id': lastId } : {}) }).catch(
        (error: unknown) => {
          failed(String(error));
          return undefined;
        },
      );
      if (stream && stream.status !== 200) failed(String(stream.status));
      if (stream?.status === 200) {
        opened += 1;
        current = stream;
        let read = 0;
        for (let ended = false; !ended;) {
          ended = await Promise.race([stream.ended.then(() => true), pause(100).then(() => stopped)]);
          for (; read < stream.received.length; read++) {
            const event = stream.received[read]!;
            if (event.event === 'unread_count') markReady();
            if (event.event === 'notification' && event.id) seen.push(event.id);
          }
        }
        stream.close();
      }
      if (!stopped) await pause(200);
    }
  })();
  return {
    seen,
    ready,
    opened: () => opened,
    stop: async () => {
      stopped = true;
      current?.close();
      await done;
    },
  };
}
