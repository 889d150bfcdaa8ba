-- Up Migration

-- The reason of migrations/004, naming a trigger that still writes events (announce_mention went).
COMMENT ON TRIGGER outbox_notify ON outbox IS
  'Wakes the relay for rows whoever writes them, enqueue, a trigger (announce_mention_removal) or psql: once per statement, at its commit. On a service''s own connections it raises a notice instead (writer-wake.ts: commits that notify wait for each other).';

-- Down Migration
COMMENT ON TRIGGER outbox_notify ON outbox IS
  'Wakes the relay for rows whoever writes them, enqueue, a trigger (announce_mention) or psql: once per statement, at its commit. On a service''s own connections it raises a notice instead (writer-wake.ts: commits that notify wait for each other).';
