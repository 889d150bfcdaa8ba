// The same work as each public read, in plain Fastify: the same SQL on the same seeded tables (named
// statements, one pool of 10 per owning service with its schema as search path), the same token check,
// responses serialised from a JSON schema (Fastify's compiled serializer), no per-request logging. Its own
// process, spawned by bench/reference-phase.mjs beside the system: PORT, DATABASE_URL, JWT_PUBLIC_KEY_FILE
// and PUSH_VAPID_PUBLIC_KEY (the system's, if it has one) from the environment. Each read is in the module
// of the service that owns it, after the handler it copies.
import { readFileSync } from 'node:fs';
import Fastify from 'fastify';
import pg from 'pg';
import { registerAuth } from './common.mjs';
import { registerCollections } from './collections.mjs';
import { registerComments } from './comments.mjs';
import { registerContent } from './content.mjs';
import { registerNotifications } from './notifications.mjs';
import { registerUsers } from './users.mjs';

function poolOf(schema) {
  const pool = new pg.Pool({
    connectionString: process.env.DATABASE_URL,
    max: 10,
    options: `-c search_path=${schema}`,
    application_name: 'bench-reference',
    // Unlike a service's (30 s): five pools of ten kept between the reads measured one after another would
    // take half of PostgreSQL's 100 connections beside the system's own. Under load none is ever idle.
    idleTimeoutMillis: 1_000,
  });
  pool.on('error', () => undefined);
  return pool;
}

const app = Fastify({ logger: false });
await registerAuth(app, readFileSync(process.env.JWT_PUBLIC_KEY_FILE, 'utf8'));
registerUsers(app, poolOf('users'));
registerContent(app, poolOf('content'));
registerComments(app, poolOf('comments'));
registerCollections(app, poolOf('collections'));
registerNotifications(app, poolOf('notifications'), { pushPublicKey: process.env.PUSH_VAPID_PUBLIC_KEY });
// A read without its copy here: bench/reference-phase.mjs stops on this status, naming the read.
app.setNotFoundHandler((request, reply) =>
  reply.code(501).send({ detail: `no reference for ${request.method} ${request.url}` }),
);

await app.listen({ host: '127.0.0.1', port: Number(process.env.PORT) });
