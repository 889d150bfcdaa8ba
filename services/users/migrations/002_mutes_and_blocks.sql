-- Up Migration

-- What one user holds against another (docs/api.md §10): a mute, a block, both or neither. A row stays
-- once made, so that `revision` keeps growing across every change of the pair and the other services'
-- read models can tell the newest snapshot from an older one, whatever order the events come in.
CREATE TABLE user_relations (
  user_id uuid NOT NULL REFERENCES users (id),
  target_id uuid NOT NULL REFERENCES users (id),
  muted_at timestamptz,
  blocked_at timestamptz,
  -- When the pair's latest block ended, so that a consumer can tell what was made before it ended.
  last_unblocked_at timestamptz,
  revision integer NOT NULL DEFAULT 1,
  changed_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (user_id, target_id),
  CHECK (user_id <> target_id)
);

-- The caller's mutes and blocks, most recent first.
CREATE INDEX user_relations_muted_idx ON user_relations (user_id, muted_at DESC, target_id DESC) WHERE muted_at IS NOT NULL;
CREATE INDEX user_relations_blocked_idx ON user_relations (user_id, blocked_at DESC, target_id DESC) WHERE blocked_at IS NOT NULL;

-- Down Migration
DROP TABLE user_relations;
