import pg from 'pg';
import { currentTraceparent, tracingOn } from '@recipes/tracing';

const statementNames = new Map<string, string>();

/** The same name for the same text on every connection of this process; a different text never shares it. */
function statementName(text: string): string {
  let name = statementNames.get(text);
  if (name === undefined) {
    name = `s${statementNames.size + 1}`;
    statementNames.set(text, name);
  }
  return name;
}

/**
 * A client that runs every parameterised query as a prepared statement named for its text, so that
 * PostgreSQL parses and plans it once per connection instead of on every call: a fifth of the database's
 * CPU for a posted comment; a comments page with its total took 0.25 - 0.29 ms a call prepared, 0.59 -
 * 0.62 ms sent as text (bench/micro/prepared-statements.mjs). Statements without parameters (BEGIN,
 * COMMIT, migrations) go as they are. Every query of a service has a fixed text and its values as
 * parameters, so the statements a connection prepares stay few. Not for a pooler in transaction mode (PgBouncer), which
 * would mix the connections.
 */
export class PreparingClient extends pg.Client {
  /** What this connection's outbox.traceparent holds; undefined when not known (after a rollback). */
  #traceparent: string | undefined = '';

  // pg's query() has a dozen overloads: this adds a name to the (text, values, …) form and passes on the rest.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  override query(...args: any[]): any {
    const [text, values] = args;
    if (typeof text === 'string' && Array.isArray(values) && values.length > 0) {
      args[0] = { name: statementName(text), text };
      if (tracingOn() && writes(text)) this.#carryTraceparent();
    } else if (text === 'ROLLBACK') this.#traceparent = undefined;
    return super.query(...(args as Parameters<pg.Client['query']>));
  }

  /**
   * While tracing is on, the connection's outbox.traceparent names the active span before each statement
   * that may write to the outbox, whose rows take it (libs/outbox/migrations/003_outbox_traceparent.sql):
   * triggers too. A read costs no round trip for it. Set only when it changes, queued ahead of the statement (pg runs a
   * client's queries in
   * order); a session setting, since a statement may run outside a transaction, which a rollback undoes.
   */
  #carryTraceparent(): void {
    const traceparent = currentTraceparent() ?? '';
    if (traceparent === this.#traceparent) return;
    this.#traceparent = traceparent;
    void super.query({ name: statementName(SET_TRACEPARENT), text: SET_TRACEPARENT }, [traceparent]).catch(() => {
      this.#traceparent = undefined;
    });
  }
}

const SET_TRACEPARENT = "SELECT set_config('outbox.traceparent', $1, false)";

const writing = new Map<string, boolean>();

/**
 * Whether a statement may write a row (an outbox row, or one whose trigger writes one): it says INSERT,
 * UPDATE or DELETE. (No function a statement calls writes an outbox row.)
 */
function writes(text: string): boolean {
  let found = writing.get(text);
  if (found === undefined) {
    found = /\b(INSERT|UPDATE|DELETE)\b/i.test(text);
    writing.set(text, found);
  }
  return found;
}
