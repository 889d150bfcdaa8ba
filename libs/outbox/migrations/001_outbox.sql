-- Up Migration

-- Events written in the same transaction as the change they describe; the relay publishes them and
-- deletes each row once the broker has confirmed it, so the table holds only what is still pending.
CREATE TABLE outbox (
  id uuid PRIMARY KEY,                             -- the event id (the message id on the broker)
  type text NOT NULL,                              -- the event type, for looking at the table by hand
  payload jsonb NOT NULL,                          -- the whole envelope, published as is
  created_at timestamptz NOT NULL DEFAULT now(),
  available_at timestamptz NOT NULL DEFAULT now(), -- pushed back after a failed publish
  attempts integer NOT NULL DEFAULT 0,
  last_error text
);

-- The relay claims the oldest rows first.
CREATE INDEX outbox_claim_idx ON outbox (created_at, id);

-- One notification per statement, delivered at commit, wakes the relay in milliseconds. The channel
-- carries the schema's name because every service shares the database but listens only to its own.
CREATE FUNCTION outbox_notify() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify(TG_TABLE_SCHEMA || '_outbox', '');
  RETURN NULL;
END;
$$;

CREATE TRIGGER outbox_notify AFTER INSERT ON outbox FOR EACH STATEMENT EXECUTE FUNCTION outbox_notify();

-- The inbox: an event id recorded in the same transaction as the handler's effect, so a redelivered
-- event has no second effect.
CREATE TABLE processed_events (
  event_id uuid PRIMARY KEY,
  event_type text NOT NULL,
  processed_at timestamptz NOT NULL DEFAULT now()
);

-- Down Migration
DROP TABLE processed_events;
DROP TRIGGER outbox_notify ON outbox;
DROP FUNCTION outbox_notify();
DROP TABLE outbox;
