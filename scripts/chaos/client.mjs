// JSON calls to the public API, each recorded with its status. A call that gets no answer (connection
// refused or reset, or no answer in time) records status 0 rather than throwing.

const TIMEOUT_MS = 15_000;

/**
 * `dispatcher` (an undici Agent) sends the calls its way, e.g. from a local address of their own. A call
 * takes `body` as a value to send as JSON, or `rawBody` (a string) to send as it is, and `headers` besides.
 */
export function apiClient(apiUrl, { dispatcher } = {}) {
  /** Every call made: `{ action, method, path, status, ms, at }` (`at`: when it was answered, epoch ms). */
  const requests = [];

  async function call(action, method, path, { body, rawBody, token, headers = {} } = {}) {
    const started = performance.now();
    let status = 0;
    let parsed;
    const sent = rawBody ?? (body === undefined ? undefined : JSON.stringify(body));
    try {
      const response = await fetch(`${apiUrl}${path}`, {
        ...(dispatcher ? { dispatcher } : {}),
        method,
        headers: {
          ...(sent === undefined ? {} : { 'content-type': 'application/json' }),
          ...(token ? { authorization: `Bearer ${token}` } : {}),
          ...headers,
        },
        body: sent,
        signal: AbortSignal.timeout(TIMEOUT_MS),
      });
      status = response.status;
      const text = await response.text();
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      // No answer, or a body cut short: the client cannot tell what happened.
      parsed = undefined;
    }
    requests.push({ action, method, path, status, ms: Math.round(performance.now() - started), at: Date.now() });
    return { status, body: parsed };
  }

  return { call, requests };
}

/** What a status means to a client in a fault campaign, for the request's `action` (e.g. `comment:recipe`). */
export function outcomeOf(status, action = '') {
  if (status >= 200 && status < 300) return 'ok';
  // Another client deleted the target first, or the item is there already: races the workload makes.
  if (status === 404 || status === 409) return 'refused';
  // The target's owner blocks the comment's author (docs/api.md §10.3); the checks hold each to a block.
  if (status === 403 && /(^|:)comment(:|$)/.test(action)) return 'refused';
  // What the gateway and services answer while something they need is away.
  if (status === 503 || status === 504 || status === 0) return 'unavailable';
  return 'unexpected';
}
