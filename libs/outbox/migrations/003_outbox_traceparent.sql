-- Up Migration

-- The W3C trace context an event was written in, which the relay sends on as the message's traceparent
-- header, so the consumers' spans go on in the producer's trace. Every writer of the table (enqueue, a
-- service's own INSERT, a trigger) gets it from the session setting outbox.traceparent, which the pool's
-- connections set while tracing is on (libs/db/src/prepared.ts); null otherwise.
ALTER TABLE outbox ADD COLUMN traceparent text DEFAULT nullif(current_setting('outbox.traceparent', true), '');

-- Down Migration
ALTER TABLE outbox DROP COLUMN traceparent;
