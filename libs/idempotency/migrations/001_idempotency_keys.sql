-- Up Migration

-- The first response to each Idempotency-Key of a caller, written in the same transaction as the effect
-- of its request, so that a retry gets it again instead of acting twice. Kept 24 hours; the service
-- purges older rows, and a lookup ignores them until then.
CREATE TABLE idempotency_keys (
  caller_id uuid NOT NULL,
  key text NOT NULL,
  fingerprint text NOT NULL,     -- sha256 of method, path and body: the same key for another request is refused
  status smallint NOT NULL,
  content_type text NOT NULL,
  body text NOT NULL,            -- exactly as sent, so that a replay is the same bytes
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (caller_id, key)
);

-- The purge deletes by age.
CREATE INDEX idempotency_keys_created_at_idx ON idempotency_keys (created_at);

-- Down Migration
DROP TABLE idempotency_keys;
