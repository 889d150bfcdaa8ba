-- Up Migration

-- A deleted account stays as a tombstone (docs/api.md §11.2): its id and its username, reserved by the
-- unique index so nobody can take the name of someone who left, and when it was deleted. Its password
-- hash and avatar are cleared. The deletion is tracked on the same row, so that nothing else holds the
-- id: the services that have confirmed their erasure, and when the last one did.
ALTER TABLE users
  ALTER COLUMN password_hash DROP NOT NULL,
  ADD COLUMN deleted_at timestamptz,
  ADD COLUMN erased_by text[] NOT NULL DEFAULT '{}',
  ADD COLUMN erasure_completed_at timestamptz;

-- The deletions still waiting for a confirmation, for the metric of stalled ones.
CREATE INDEX users_erasure_pending_idx ON users (deleted_at) WHERE deleted_at IS NOT NULL AND erasure_completed_at IS NULL;

-- Down Migration
DROP INDEX users_erasure_pending_idx;
ALTER TABLE users DROP COLUMN erasure_completed_at, DROP COLUMN erased_by, DROP COLUMN deleted_at;
