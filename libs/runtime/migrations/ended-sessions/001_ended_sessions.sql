-- Up Migration

-- The ended sessions this service has learnt of (docs/api.md §11.1, the `user.session.ended` event), so
-- that it refuses their access tokens through its own restarts: each process loads them at start and
-- keeps them in memory. A row is forgotten once no access token it could refuse is still valid.
CREATE TABLE ended_sessions (
  session_id uuid PRIMARY KEY,
  user_id uuid NOT NULL,
  forget_after timestamptz NOT NULL
);

-- Per user, when all of their sessions ended last: a session token issued in a whole second before is refused.
CREATE TABLE sessions_not_before (
  user_id uuid PRIMARY KEY,
  not_before timestamptz NOT NULL,
  forget_after timestamptz NOT NULL
);

CREATE INDEX ended_sessions_forget_idx ON ended_sessions (forget_after);

-- Down Migration
DROP TABLE sessions_not_before;
DROP TABLE ended_sessions;
