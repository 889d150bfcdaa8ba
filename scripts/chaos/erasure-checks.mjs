// The checks of the users who left (deletions.mjs), once the system has settled: every deletion begun is
// complete (each erasing service confirmed it on the tombstone); and of each complete one, nothing is
// shown through the gateway (their profile, their things, their comments in others' lists, their
// notifications in others' inboxes, others' saved items of their things) nor kept in any table of any
// schema but the tombstone (the search of test/support/leftovers.ts: every column read from the catalogue).
import { ERASING_SERVICES } from '@recipes/contracts';
import { apiClient, outcomeOf } from './client.mjs';

const PASSWORD = 'correct horse battery';
/** docs/api.md §11.2: a deletion completes within seconds of its services' return; this is a generous wait. */
const COMPLETES_WITHIN_MS = 60_000;
const SYSTEM_SCHEMAS = ['pg_catalog', 'information_schema', 'pg_toast'];
/** Every column a user's id or name could be written in: text of any kind, uuids, JSON, and arrays of them. */
const SEARCHED_TYPES = ['text', 'character varying', 'character', 'uuid', 'json', 'jsonb', 'ARRAY', 'USER-DEFINED'];

const row = (check, failures, figures) => ({ check, result: failures === 0 ? 'PASS' : 'FAIL', figures });
const sample = (items) => (items.length === 0 ? '' : `; e.g. ${items.slice(0, 3).join(', ')}`);
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const quoted = (name) => `"${name.replaceAll('"', '""')}"`;

/** The leavers' tombstones as the users service keeps them: `{ id, deletedAt, completedAt, erasedBy }`. */
async function tombstones(db, ids) {
  const { rows } = await db.query(
    `SELECT id::text, deleted_at AS "deletedAt", erasure_completed_at AS "completedAt", erased_by AS "erasedBy"
       FROM users.users WHERE id = ANY($1::uuid[]) AND deleted_at IS NOT NULL`,
    [ids],
  );
  return new Map(rows.map((r) => [r.id, r]));
}

/** The tombstones, once every one is complete or `COMPLETES_WITHIN_MS` has passed. */
async function completedOrNot(db, ids) {
  const deadline = Date.now() + COMPLETES_WITHIN_MS;
  for (;;) {
    const found = await tombstones(db, ids);
    if ([...found.values()].every((t) => t.completedAt) || Date.now() > deadline) return found;
    await sleep(1_000);
  }
}

/**
 * Every cell of every table of every schema but the system's that holds one of `needles` (any case,
 * anywhere in its text): `{ table, column, row }`. The tables are read from the catalogue at each call.
 */
async function findLeftovers(db, needles) {
  const { rows: columns } = await db.query(
    `SELECT c.table_schema AS schema, c.table_name AS "table", c.column_name AS "column"
       FROM information_schema.columns c JOIN information_schema.tables t USING (table_schema, table_name)
      WHERE t.table_type = 'BASE TABLE' AND c.table_schema <> ALL($1::text[]) AND c.data_type = ANY($2::text[])
      ORDER BY 1, 2, 3`,
    [SYSTEM_SCHEMAS, SEARCHED_TYPES],
  );
  const found = [];
  for (const { schema, table, column } of columns) {
    const { rows } = await db.query(
      `SELECT t::text AS row FROM ${quoted(schema)}.${quoted(table)} t
        WHERE EXISTS (SELECT 1 FROM unnest($1::text[]) AS needle WHERE strpos(lower(t.${quoted(column)}::text), lower(needle)) > 0)`,
      [needles],
    );
    for (const { row: text } of rows) found.push({ table: `${schema}.${table}`, column, row: text });
  }
  return { found, tables: new Set(columns.map((c) => `${c.schema}.${c.table}`)).size };
}

/** No table holds a complete deletion's id or name but its tombstone (users.users: `id`, `username`). */
async function nothingKept(db, gone) {
  const { found, tables } = await findLeftovers(
    db,
    gone.flatMap((leaver) => [leaver.id, leaver.username]),
  );
  const kept = found.filter((f) => !(f.table === 'users.users' && ['id', 'username'].includes(f.column)));
  return row(
    'deleted users: no table holds them but the tombstone',
    kept.length + (tables < 40 ? 1 : 0),
    `${gone.length} users searched for in ${tables} tables: ${kept.length} cells hold one` +
      sample(kept.map((k) => `${k.table}.${k.column}: ${k.row.slice(0, 120)}`)),
  );
}

/**
 * Reads through the gateway, as any client would; `findings` gets what shows a deleted user. A read the API
 * could not answer (after a few tries) is a finding too: what was not read was not shown to be gone.
 */
async function shownThroughGateway({ apiUrl, world, gone }) {
  const { call } = apiClient(apiUrl);
  const goneIds = new Set(gone.map((l) => l.id));
  const goneContent = new Set(gone.flatMap((l) => [...l.made.recipes, ...l.made.posts]));
  const findings = [];
  let reads = 0;
  const read = async (path, token) => {
    for (let attempt = 1; ; attempt += 1) {
      reads += 1;
      const reply = await call('erased:read', 'GET', path, { token });
      if (outcomeOf(reply.status) !== 'unavailable' || attempt === 5) return reply;
      await sleep(1_000);
    }
  };
  /** Every item of a listing (`key` its list), page by page; undefined when it is 404. */
  const listing = async (path, key, token) => {
    const items = [];
    for (let page = 1; ; page += 1) {
      const reply = await read(`${path}${path.includes('?') ? '&' : '?'}limit=100&page=${page}`, token);
      if (reply.status === 404) return undefined;
      if (reply.status !== 200 || !reply.body) {
        findings.push(`${reply.status} to GET ${path}`);
        return items;
      }
      items.push(...reply.body[key]);
      if (page >= reply.body.pagination.totalPages) return items;
    }
  };

  for (const leaver of gone) {
    const theirs = [
      `/users/${leaver.id}`,
      `/users/${leaver.username}`,
      `/users/${leaver.id}/recipes`,
      ...leaver.made.recipes.map((id) => `/recipes/${id}`),
      ...leaver.made.posts.map((id) => `/posts/${id}`),
      ...leaver.made.collections.map((id) => `/collections/${id}`),
    ];
    for (const path of theirs) {
      const { status } = await read(path);
      if (status !== 404) findings.push(`${status} to GET ${path}`);
    }
  }
  const targets = new Map(gone.flatMap((l) => l.commentedOn).map((t) => [`${t.type}s/${t.id}`, t]));
  for (const key of targets.keys()) {
    const comments = (await listing(`/${key}/comments`, 'comments')) ?? [];
    for (const c of comments) if (goneIds.has(c.author?.id)) findings.push(`comment ${c.id} on ${key}`);
  }
  for (const user of world.users) {
    const saved = (await listing(`/users/${user.id}/saved-items`, 'savedItems')) ?? [];
    for (const s of saved) if (goneContent.has(s.contentId)) findings.push(`saved item ${s.id} of ${user.id}`);
    let token = user.token;
    // The workload's tokens may have expired in a long run: a fresh session then.
    if ((await read('/notifications/unread-count', token)).status === 401) {
      const login = await call('erased:login', 'POST', '/auth/login', {
        body: { username: user.username, password: PASSWORD },
      });
      token = login.body?.token;
    }
    const inbox = (await listing('/notifications', 'data', token)) ?? [];
    for (const n of inbox) if (goneIds.has(n.actor?.id)) findings.push(`notification ${n.id} to ${user.id}`);
  }
  return row(
    'deleted users: nothing of them shown through the gateway',
    findings.length,
    `${gone.length} users, ${reads} reads (their profiles and things, ${targets.size} comment lists, ` +
      `${world.users.length} users' saved items and inboxes): ${findings.length} showing them${sample(findings)}`,
  );
}

/** The services that have not confirmed every one of `tombstones`. */
const unconfirmedServices = (tombstones) =>
  ERASING_SERVICES.filter((service) => tombstones.some((t) => !t.erasedBy.includes(service)));

/**
 * Why a service may not have confirmed an erasure, from the lines its processes logged (`system` started with
 * `logs: 'pipe'`): its failures of `user.deleted`, the last few, or none found.
 */
function erasureFailuresLogged(system, service) {
  const failures = (system?.processes ?? [])
    .filter((p) => p.service === service)
    .flatMap((p) => p.lines.filter((line) => line.includes('"user.deleted"') && line.includes('"level":"error"')))
    .map((line) => {
      const { msg, err, attempt } = JSON.parse(line);
      return `${msg} (attempt ${attempt}): ${err?.message ?? 'no error'}`;
    });
  return failures.length === 0 ? `${service} logged no failure of user.deleted` : failures.slice(-3).join(' | ');
}

/**
 * The rows of the deletions: the client's answers, every deletion begun complete, and of the complete ones
 * nothing shown or kept. `leavers`, `wrong`, `requests`: deletions.mjs's; `system`, for the logs of a service
 * that did not confirm.
 */
export async function erasureChecks({ db, apiUrl, world, leavers, wrong, requests, system }) {
  const found = await completedOrNot(
    db,
    leavers.map((l) => l.id),
  );
  const answered = leavers.filter((l) => l.deletion === 202);
  const uncertain = leavers.filter((l) => l.deletion === 'uncertain');
  const notBegun = answered.filter((l) => !found.has(l.id));
  const incomplete = [...found.values()].filter((t) => !t.completedAt);
  const gone = leavers.filter((l) => found.get(l.id)?.completedAt);
  const slowest = Math.max(0, ...gone.map((l) => found.get(l.id).completedAt - found.get(l.id).deletedAt));
  const rows = [
    row(
      'deletions: no answer but those expected (202 to a deletion; 503/504/none)',
      wrong.length,
      `${requests.length} requests, ${leavers.length} users registered to leave` +
        sample(wrong.map((w) => `${w.status} to ${w.action}`)),
    ),
    row(
      'deletions: every one begun completes once the faults end',
      notBegun.length + incomplete.length + (found.size === 0 ? 1 : 0),
      `${found.size} begun (${answered.length} answered 202, ${uncertain.length} never answered but unavailable), ` +
        `${gone.length} complete, slowest ${(slowest / 1_000).toFixed(1)} s; ${notBegun.length} answered 202 without a tombstone, ` +
        `${incomplete.length} incomplete after ${COMPLETES_WITHIN_MS / 1_000} s` +
        sample(incomplete.map((t) => `${t.id} confirmed by ${t.erasedBy.join('+') || 'none'}`)) +
        (incomplete.length === 0
          ? ''
          : `; ${unconfirmedServices(incomplete)
              .map((service) => erasureFailuresLogged(system, service))
              .join('; ')}`),
    ),
  ];
  if (gone.length === 0) return [...rows, row('deleted users: nothing shown or kept', 1, 'no deletion completed')];
  const shown = await shownThroughGateway({ apiUrl, world, gone }).catch((error) =>
    row('deleted users: nothing of them shown through the gateway', 1, `could not check: ${error.message}`),
  );
  const kept = await nothingKept(db, gone).catch((error) =>
    row('deleted users: no table holds them but the tombstone', 1, `could not check: ${error.message}`),
  );
  return [...rows, shown, kept];
}

/** Ids of every user deleted (tombstones), for the checks that meet what they left before their erasure. */
export async function deletedUserIds(db) {
  const { rows } = await db.query('SELECT id::text FROM users.users WHERE deleted_at IS NOT NULL');
  return new Set(rows.map((r) => r.id));
}
