-- Up Migration

-- A login's session (docs/api.md §11.1). Its refresh tokens are never stored: each is an HMAC, under a
-- key the service derives from its signing key, of the session's `seed` and the token's generation, so
-- that a refresh presented again within the grace gets the same answer, and this table alone gives
-- nobody a token. `generation` is that of the current refresh token; each refresh takes the next.
CREATE TABLE sessions (
  id uuid PRIMARY KEY,
  user_id uuid NOT NULL REFERENCES users (id),
  user_agent text,
  seed bytea NOT NULL,
  generation integer NOT NULL DEFAULT 0,
  created_at timestamptz NOT NULL DEFAULT now(),
  last_used_at timestamptz NOT NULL DEFAULT now(),
  expires_at timestamptz NOT NULL,
  ended_at timestamptz,
  end_reason text,
  -- The per-session limit on refreshes: how many in the window begun then.
  refresh_window_started_at timestamptz NOT NULL DEFAULT now(),
  refreshes_in_window integer NOT NULL DEFAULT 0
);

-- A user's live sessions, most recently used first.
CREATE INDEX sessions_live_idx ON sessions (user_id, last_used_at DESC) WHERE ended_at IS NULL;

-- Every refresh token a session was given, by the SHA-256 of the token: the current one rotates, the one
-- before it answers again within the grace, and any other is a replay that ends the session.
CREATE TABLE refresh_tokens (
  token_hash bytea PRIMARY KEY,
  session_id uuid NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
  generation integer NOT NULL,
  issued_at timestamptz NOT NULL DEFAULT clock_timestamp(),
  UNIQUE (session_id, generation)
);

-- Down Migration
DROP TABLE refresh_tokens;
DROP TABLE sessions;
