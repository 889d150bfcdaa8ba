import { eventCatalogue } from '@recipes/contracts';
import type { App } from '@recipes/http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGateway, unusedUrl } from './support/servers.js';

let gateway: App;

beforeAll(async () => {
  // The event catalogue is built in: it is served with every service down.
  const down = await unusedUrl();
  gateway = await startGateway({
    USERS_URL: down,
    CONTENT_URL: down,
    COMMENTS_URL: down,
    COLLECTIONS_URL: down,
    NOTIFICATIONS_URL: down,
    EVENTS_EXCHANGE: 'shop.events',
  });
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
    expect(response.headers['x-ratelimit-limit']).toBeUndefined();
    expect(response.headers['x-upstream']).toBeUndefined();
  });
});

describe('/docs/events', () => {
  it('lists every event with its producer and consumers, and links to the document', async () => {
    const response = await gateway.inject({ method: 'GET', url: '/docs/events' });
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(response.body).toContain('<a href="/docs/events.json">');
    expect(response.body).toContain('<tr><td>comment.mention.created</td><td>1</td><td>comments</td><td>notifications</td>');
    expect(response.body.match(/<tr><td>/g)).toHaveLength(eventCatalogue.length);
  });

  it('leaves the HTTP API docs where they were', async () => {
    expect((await gateway.inject({ method: 'GET', url: '/docs/json' })).statusCode).toBe(200);
  });
});
