-- Up Migration

-- Why the outbox's trigger is a trigger (docs/architecture.md's table of triggers shows it).
COMMENT ON TRIGGER outbox_notify ON outbox IS
  'Wakes the relay for rows whoever writes them, enqueue, a trigger (announce_mention) or psql: once per statement, at its commit. On a service''s own connections it raises a notice instead (writer-wake.ts: commits that notify wait for each other).';

-- Down Migration
COMMENT ON TRIGGER outbox_notify ON outbox IS NULL;
