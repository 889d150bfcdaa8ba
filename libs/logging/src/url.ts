/**
 * Query parameters whose values a log line shows: the API's paging and filters, which never carry a
 * credential. Any other value (a stream `ticket`, an `access_token` a careless client put in the URL, a
 * `lastEventId` that proves a stream's resume, a name nobody foresaw) is logged as `[redacted]`.
 */
const shownValues = new Set(['page', 'limit', 'standalone', 'content_type']);

export const REDACTED = '[redacted]';

/** A parameter's name is shown when it reads as one; a long or odd one may be a token sent without a name. */
const plainName = /^[A-Za-z][A-Za-z0-9_.-]{0,39}$/;

/**
 * A request URL as a log line may show it: the path as sent, then each query parameter with its value kept
 * only when it is one of `shownValues` (the `?` and the names stay, so a line still tells what was asked).
 */
export function urlForLog(url: string): string {
  const mark = url.indexOf('?');
  if (mark === -1) return url;
  const parameters = [...new URLSearchParams(url.slice(mark + 1))].map(([name, value]) => {
    if (!plainName.test(name)) return REDACTED;
    return `${name}=${shownValues.has(name) || value === '' ? encodeURIComponent(value) : REDACTED}`;
  });
  return `${url.slice(0, mark)}?${parameters.join('&')}`;
}
