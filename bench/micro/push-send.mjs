// The floor of one Web Push (docs/api.md §11.3) in plain Node: what sending it costs the sender's process
// whatever the system around it does. Per push: the RFC 8291 encryption (web-push), the RFC 8292 VAPID
// signature (reused per push service by the notifications service, so shown apart), and the encryption
// with a POST to a local push service over a kept-alive connection, with undici's `request` (as the sender
// sends) and with `fetch` (as it sent before). Prints the client's CPU milliseconds per push of each, in
// alternating rounds. Run alone: `nice node bench/micro/push-send.mjs`.
import { createECDH, randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import { createRequire } from 'node:module';
import { request } from 'undici';

const webPush = createRequire(new URL('../../services/notifications/package.json', import.meta.url))('web-push');

const ROUNDS = 3;
const PUSHES = 2_000;

const vapid = { subject: 'mailto:push@localhost', ...webPush.generateVAPIDKeys() };
const browser = createECDH('prime256v1');
browser.generateKeys();
const server = createServer((incoming, response) => {
  incoming.resume();
  incoming.on('end', () => response.writeHead(201).end());
});
await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
const endpoint = `http://127.0.0.1:${server.address().port}/push/1`;
const subscription = {
  endpoint,
  keys: { p256dh: browser.getPublicKey('base64url'), auth: randomBytes(16).toString('base64url') },
};
const payload = JSON.stringify({
  notification: { id: '019375a2-7c1e-7d3a-9b8f-2c4d6e8f0a1b', type: 'mention_recipe_comment', isRead: false },
  unreadCount: 3,
});
const authorization = webPush.getVapidHeaders(
  new URL(endpoint).origin,
  vapid.subject,
  vapid.publicKey,
  vapid.privateKey,
  'aes128gcm',
).Authorization;
const options = {
  headers: { Authorization: authorization },
  TTL: 86_400,
  urgency: 'normal',
  topic: 'abc',
  contentEncoding: 'aes128gcm',
};

const kinds = {
  'encryption (web-push)': async () => webPush.generateRequestDetails(subscription, payload, options),
  'VAPID signature': async () =>
    webPush.getVapidHeaders(new URL(endpoint).origin, vapid.subject, vapid.publicKey, vapid.privateKey, 'aes128gcm'),
  'encryption and POST (request, one push)': async () => {
    const details = webPush.generateRequestDetails(subscription, payload, options);
    const { 'Content-Length': _length, ...headers } = details.headers;
    const response = await request(endpoint, { method: 'POST', headers, body: details.body });
    await response.body.text();
  },
  'encryption and POST (fetch, one push)': async () => {
    const details = webPush.generateRequestDetails(subscription, payload, options);
    const { 'Content-Length': _length, ...headers } = details.headers;
    const response = await fetch(endpoint, { method: 'POST', headers, body: new Uint8Array(details.body) });
    await response.arrayBuffer();
  },
};

const figures = Object.fromEntries(Object.keys(kinds).map((kind) => [kind, []]));
for (let round = 0; round < ROUNDS; round += 1) {
  for (const [kind, once] of Object.entries(kinds)) {
    for (let i = 0; i < 100; i += 1) await once();
    const before = process.cpuUsage();
    for (let i = 0; i < PUSHES; i += 1) await once();
    const used = process.cpuUsage(before);
    figures[kind].push(+((used.user + used.system) / 1000 / PUSHES).toFixed(3));
  }
}
server.close();
console.table(Object.entries(figures).map(([kind, ms]) => ({ kind, 'CPU ms per push (rounds)': ms.join(' / ') })));
