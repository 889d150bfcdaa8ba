import { asyncApiDocument, eventCatalogue } from '@recipes/contracts';
import type { App } from '@recipes/http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { everyServiceAt, startGateway, unusedUrl } from './support/servers.js';

let gateway: App;

beforeAll(async () => {
  // The event catalogue is built in: it is served with every service down.
  const down = await unusedUrl();
  gateway = await startGateway({ ...everyServiceAt(down), EVENTS_EXCHANGE: 'shop.events' });
});
afterAll(() => gateway.close());

describe('/docs/events.json', () => {
  it('serves the AsyncAPI document of the event catalogue, on the configured exchange', async () => {
    const response = await gateway.inject({ method: 'GET', url: '/docs/events.json' });
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toMatch(/^application\/json/);
    const document = response.json();
    expect(document.asyncapi).toBe('3.0.0');
    expect(Object.keys(document.channels).sort()).toEqual(eventCatalogue.map((event) => event.type).sort());
    expect(document.channels['comment.created'].bindings.amqp.exchange.name).toBe('shop.events');
    expect(document.operations['content.receive.comment.created']).toMatchObject({ action: 'receive' });
    expect(document.components.messages['comment.created.v1'].payload.properties.data.required).toContain('targetId');
  });

  it('is not proxied and not rate limited like the API', async () => {
    const response = await gateway.inject({ method: 'GET', url: '/docs/events.json' });
    expect(response.headers['ratelimit-policy']).toBeUndefined();
    expect(response.headers['x-upstream']).toBeUndefined();
  });
});

describe('/docs/events', () => {
  it('lists every event with its producer and consumers, and links to the document', async () => {
    const response = await gateway.inject({ method: 'GET', url: '/docs/events' });
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(response.body).toContain('<a href="/docs/events.json">');
    expect(response.body).toContain(
      '<tr><td>comment.mention.created</td><td>1</td><td>comments</td><td>notifications</td>',
    );
    expect(response.body.match(/<tr><td>/g)).toHaveLength(eventCatalogue.length);
  });

  it('shows each event’s schema: the fields of its data with their types, and its whole payload schema', async () => {
    const body = (await gateway.inject({ method: 'GET', url: '/docs/events' })).body;
    const messages = asyncApiDocument({ exchange: 'shop.events' }).components.messages as Record<
      string,
      { payload: object }
    >;
    for (const event of eventCatalogue) {
      const id = `${event.type}.v${event.version}`;
      const section = body.slice(
        body.indexOf(`<section id="${id}">`),
        body.indexOf('</section>', body.indexOf(`<section id="${id}">`)),
      );
      expect(section, id).toContain(`<h2>${event.type} v${event.version}</h2>`);
      expect(body, id).toContain(`<a href="#${id}">schema</a>`);
      // Every field of its data, with its type and whether it is required.
      const data = (
        messages[id]!.payload as { properties: { data: { properties: Record<string, unknown>; required?: string[] } } }
      ).properties.data;
      for (const field of Object.keys(data.properties))
        expect(section, `${id}.${field}`).toContain(`<th scope="row"><code>${field}</code></th>`);
      // The payload schema in full, as /docs/events.json has it (HTML-escaped).
      const unescaped = section.replace(/&#(\d+);/g, (_whole, code: string) => String.fromCharCode(Number(code)));
      expect(unescaped, id).toContain(JSON.stringify(messages[id]!.payload, null, 2));
    }
    const mention = body.slice(body.indexOf('<section id="comment.mention.created.v1">'));
    expect(mention).toContain(
      '<tr><th scope="row"><code>mentionedUserId</code></th><td>string (uuid)</td><td>yes</td>',
    );
    expect(mention).toContain(
      '<td>&#34;recipe_comment&#34; | &#34;collection_comment&#34; | &#34;post_comment&#34;</td>',
    );
  });

  it('leaves the HTTP API docs where they were', async () => {
    expect((await gateway.inject({ method: 'GET', url: '/docs/json' })).statusCode).toBe(200);
  });
});
