-- Up Migration

-- A NOTIFY reaches every connection that listens in the database, whatever its channel: each service's
-- relay, woken for every other service's events. A connection that asks for it (outbox.wake = 'writer',
-- see libs/outbox/src/writer-wake.ts) is told instead, by a notice to itself, and its own process wakes
-- its relay once the transaction has committed. Every other writer (another process, psql) still
-- notifies.
CREATE OR REPLACE FUNCTION outbox_notify() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF current_setting('outbox.wake', true) = 'writer' THEN
    RAISE NOTICE 'outbox written';
  ELSE
    PERFORM pg_notify(TG_TABLE_SCHEMA || '_outbox', '');
  END IF;
  RETURN NULL;
END;
$$;

-- Down Migration
CREATE OR REPLACE FUNCTION outbox_notify() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify(TG_TABLE_SCHEMA || '_outbox', '');
  RETURN NULL;
END;
$$;
