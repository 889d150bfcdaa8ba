import { asyncApiDocument, eventCatalogue } from '@recipes/contracts';
import type { App } from '@recipes/http';
import { z } from 'zod';

export interface EventDocsOptions {
  /** The topic exchange the services publish to (EVENTS_EXCHANGE), named in the document's channels. */
  exchange: string;
}

/** Enough of an AsyncAPI 3.0 document to know it is one; the rest passes through as generated. */
const asyncApiSchema = z.looseObject({
  asyncapi: z.literal('3.0.0'),
  info: z.looseObject({ title: z.string(), version: z.string() }),
  channels: z.record(z.string(), z.unknown()),
  operations: z.record(z.string(), z.unknown()),
});

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);

/** A page a person can read: each event with its producer and consumers, and a link to the document. */
function cataloguePage(): string {
  const rows = eventCatalogue
    .map((event) =>
      [event.type, String(event.version), event.producer, event.consumers.join(', '), event.description]
        .map((cell) => `<td>${escapeHtml(cell)}</td>`)
        .join(''),
    )
    .map((cells) => `<tr>${cells}</tr>`)
    .join('\n');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Event catalogue</title></head>
<body>
<h1>Event catalogue</h1>
<p>The AsyncAPI 3.0 document: <a href="/docs/events.json">/docs/events.json</a>. The HTTP API: <a href="/docs">/docs</a>.</p>
<table>
<thead><tr><th>Type (routing key)</th><th>Version</th><th>Producer</th><th>Consumers</th><th>Meaning</th></tr></thead>
<tbody>
${rows}
</tbody>
</table>
</body></html>
`;
}

/**
 * The event catalogue next to `/docs`: its AsyncAPI document at `/docs/events.json` and a small page at
 * `/docs/events`. Both are built once from @recipes/contracts: the catalogue changes only with a release.
 */
export default async function eventDocsPlugin(app: App, { exchange }: EventDocsOptions) {
  const document = asyncApiDocument({ exchange });
  const page = cataloguePage();

  app.get('/docs/events.json', { schema: { hide: true, response: { 200: asyncApiSchema } } }, async () => document);

  app.get(
    '/docs/events',
    { schema: { hide: true, response: { 200: { content: { 'text/html': { schema: z.string() } } } } } },
    async (_request, reply) => reply.type('text/html; charset=utf-8').send(page),
  );
}
