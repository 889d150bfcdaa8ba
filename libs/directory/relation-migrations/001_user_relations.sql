-- Up Migration

-- What this service knows of who mutes or blocks whom (docs/api.md §10), fed by the users service's
-- user.muted, user.unmuted, user.blocked and user.unblocked events, each the pair's whole state: `revision`
-- decides which of two is the newer, so the row converges whatever order they come in, and however often.
CREATE TABLE user_relations (
  user_id uuid NOT NULL,
  target_id uuid NOT NULL,
  muted boolean NOT NULL,
  blocked boolean NOT NULL,
  -- When the pair's latest block ended: what the target made before it was made during or before a block.
  last_unblocked_at timestamptz,
  revision integer NOT NULL,
  -- When this service took in the state held: from then on it acts on it (the chaos campaign checks so).
  applied_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (user_id, target_id)
);

-- Who blocks a given user: the mentions and tags of a comment's or a recipe's author, looked up by author.
CREATE INDEX user_relations_target_idx ON user_relations (target_id) WHERE blocked;

-- Down Migration
DROP TABLE user_relations;
