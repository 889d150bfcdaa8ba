-- Up Migration

-- Why each trigger of this schema is a trigger (docs/architecture.md's table of triggers shows them).
COMMENT ON TRIGGER actor_arrived ON users IS
  'The users directory''s handler (libs/directory) stores an actor knowing nothing of notification listings; this changes their ETags (docs/api.md §7) in its transaction.';
COMMENT ON TRIGGER actor_changed ON users IS
  'The users directory''s handler (libs/directory) applies a new name or avatar knowing nothing of notification listings; this changes their ETags (docs/api.md §7) in its transaction.';

-- Down Migration
COMMENT ON TRIGGER actor_changed ON users IS NULL;
COMMENT ON TRIGGER actor_arrived ON users IS NULL;
