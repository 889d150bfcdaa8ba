import type { ListPagination } from '@recipes/contracts';
import type { FastifyReply, FastifyRequest } from 'fastify';

/**
 * `url` (a request's path and query, as the client sent them to the gateway, which forwards both as they
 * are) with `page` and `cursor` replaced by `set`: every other parameter is kept exactly as it was written.
 */
export function withPlace(url: string, set: { page: number } | { cursor: string }): string {
  const [path, query = ''] = url.split('?', 2) as [string, string?];
  const kept = query.split('&').filter((pair) => {
    if (pair === '') return false;
    const name = pair.split('=', 1)[0]!;
    let decoded: string;
    try {
      decoded = decodeURIComponent(name.replaceAll('+', ' '));
    } catch {
      return true;
    }
    return decoded !== 'page' && decoded !== 'cursor';
  });
  const place = 'cursor' in set ? `cursor=${encodeURIComponent(set.cursor)}` : `page=${set.page}`;
  return `${path}?${[...kept, place].join('&')}`;
}

/**
 * The RFC 8288 `Link` header of a list answer (docs/api.md §10.1): `next` by cursor while more follows,
 * and for an answer to a page number also `first`, `prev` (not on the first page) and `last`.
 * Root-relative, so they name the public path the request named.
 */
export function listLinks(url: string, pagination: ListPagination): string | undefined {
  const links: string[] = [];
  const link = (target: string, rel: string) => links.push(`<${target}>; rel="${rel}"`);
  if (pagination.nextCursor !== null) link(withPlace(url, { cursor: pagination.nextCursor }), 'next');
  if (pagination.page !== null) {
    const last = Math.max(pagination.totalPages, 1);
    link(withPlace(url, { page: 1 }), 'first');
    if (pagination.page > 1) link(withPlace(url, { page: Math.min(pagination.page - 1, last) }), 'prev');
    link(withPlace(url, { page: last }), 'last');
  }
  return links.length > 0 ? links.join(', ') : undefined;
}

/** Sends the `Link` header of a list answer and gives the answer back, for a route to return. */
export function withListLinks<Answer extends { pagination: ListPagination }>(
  request: FastifyRequest,
  reply: FastifyReply,
  answer: Answer,
): Answer {
  const links = listLinks(request.url, answer.pagination);
  if (links !== undefined) reply.header('link', links);
  return answer;
}

/** The `Link` header as the OpenAPI document declares it on every list answer. */
export const listLinkHeader = {
  link: {
    description:
      'RFC 8288 links: `rel="next"` (by cursor) while more follows; for a request by `page` also ' +
      '`first`, `prev` and `last`. Root-relative, keeping the request’s other query parameters.',
    type: 'string',
  },
} as const;
