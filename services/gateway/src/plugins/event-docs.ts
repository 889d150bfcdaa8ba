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

type JsonSchema = {
  type?: string | string[];
  format?: string;
  const?: unknown;
  enum?: unknown[];
  anyOf?: JsonSchema[];
  items?: JsonSchema;
  properties?: Record<string, JsonSchema>;
  required?: string[];
  description?: string;
};

/** A schema's type in a few words: `string (uuid)`, `"recipe" | "post"`, `array of string`, `string | null`. */
function typeOf(schema: JsonSchema): string {
  if ('const' in schema) return JSON.stringify(schema.const);
  if (schema.enum) return schema.enum.map((value) => JSON.stringify(value)).join(' | ');
  if (schema.anyOf) return schema.anyOf.map(typeOf).join(' | ');
  const types = [schema.type ?? []]
    .flat()
    .map((type) => (type === 'array' ? `array of ${schema.items ? typeOf(schema.items) : 'anything'}` : type));
  const base = types.length > 0 ? types.join(' | ') : 'anything';
  return schema.format ? `${base} (${schema.format})` : base;
}

/** The message's anchor on the page and its id in the AsyncAPI document: `comment.created.v1`. */
const messageIdOf = (event: { type: string; version: number }) => `${event.type}.v${event.version}`;

/**
 * One event's section: what it means, who sends and receives it, the fields of its `data`, and its whole payload
 * schema.
 */
function eventSection(event: (typeof eventCatalogue)[number], payload: JsonSchema): string {
  const data = payload.properties?.data ?? {};
  const required = new Set(data.required ?? []);
  const fields = Object.entries(data.properties ?? {})
    .map(
      ([name, schema]) =>
        `<tr><th scope="row"><code>${escapeHtml(name)}</code></th><td>${escapeHtml(typeOf(schema))}</td>` +
        `<td>${required.has(name) ? 'yes' : 'no'}</td><td>${escapeHtml(schema.description ?? '')}</td></tr>`,
    )
    .join('\n');
  const id = messageIdOf(event);
  return `<section id="${escapeHtml(id)}">
<h2>${escapeHtml(event.type)} v${event.version}</h2>
<p>${escapeHtml(event.description)}</p>
<p>Produced by ${escapeHtml(event.producer)}; consumed by ${escapeHtml(event.consumers.join(', ') || 'no service')}.
Routing key <code>${escapeHtml(event.type)}</code>.</p>
<table>
<thead><tr><th>Field of <code>data</code></th><th>Type</th><th>Required</th><th>Meaning</th></tr></thead>
<tbody>
${fields}
</tbody>
</table>
<details><summary>Payload schema (JSON Schema draft 7: the envelope with its <code>data</code>)</summary>
<pre><code>${escapeHtml(JSON.stringify(payload, null, 2))}</code></pre>
</details>
</section>`;
}

/** A page a person can read: each event with its producer and consumers, its schema, and a link to the document. */
function cataloguePage(document: ReturnType<typeof asyncApiDocument>): string {
  const messages = document.components.messages as Record<string, { payload: JsonSchema }>;
  const rows = eventCatalogue
    .map(
      (event) =>
        [event.type, String(event.version), event.producer, event.consumers.join(', '), event.description]
          .map((cell) => `<td>${escapeHtml(cell)}</td>`)
          .join('') + `<td><a href="#${escapeHtml(messageIdOf(event))}">schema</a></td>`,
    )
    .map((cells) => `<tr>${cells}</tr>`)
    .join('\n');
  const sections = eventCatalogue
    .map((event) => eventSection(event, messages[messageIdOf(event)]?.payload ?? {}))
    .join('\n');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Event catalogue</title></head>
<body>
<h1>Event catalogue</h1>
<p>The AsyncAPI 3.0 document: <a href="/docs/events.json">/docs/events.json</a>. The HTTP API: <a href="/docs">/docs</a>.</p>
<table>
<thead><tr><th>Type (routing key)</th><th>Version</th><th>Producer</th><th>Consumers</th><th>Meaning</th><th>Schema</th></tr></thead>
<tbody>
${rows}
</tbody>
</table>
${sections}
</body></html>
`;
}

/**
 * The event catalogue next to `/docs`: its AsyncAPI document at `/docs/events.json` and a small page at
 * `/docs/events`. Both are built once from @recipes/contracts: the catalogue changes only with a release.
 */
export default async function eventDocsPlugin(app: App, { exchange }: EventDocsOptions) {
  const document = asyncApiDocument({ exchange });
  const page = cataloguePage(document);

  app.get('/docs/events.json', { schema: { hide: true, response: { 200: asyncApiSchema } } }, async () => document);

  app.get(
    '/docs/events',
    { schema: { hide: true, response: { 200: { content: { 'text/html': { schema: z.string() } } } } } },
    async (_request, reply) => reply.type('text/html; charset=utf-8').send(page),
  );
}
