-- Up Migration

-- The ended sessions this service has learnt of (docs/api.md §11.1, the `user.session.ended` event), so
-- that it refuses their access tokens through its own restarts: each process loads them at start, keeps
-- them in memory, and reads what others recorded since (`recorded_at`) every second. A row is forgotten
-- once no access token it could refuse is still valid.
CREATE TABLE ended_sessions (
  session_id uuid PRIMARY KEY,
  user_id uuid NOT NULL,
  forget_after timestamptz NOT NULL,
  recorded_at timestamptz NOT NULL DEFAULT clock_timestamp()
);

-- Per user, when all of their sessions ended last: a session token issued in a whole second before is refused.
CREATE TABLE sessions_not_before (
  user_id uuid PRIMARY KEY,
  not_before timestamptz NOT NULL,
  forget_after timestamptz NOT NULL,
  recorded_at timestamptz NOT NULL DEFAULT clock_timestamp()
);

CREATE INDEX ended_sessions_forget_idx ON ended_sessions (forget_after);
CREATE INDEX ended_sessions_recorded_idx ON ended_sessions (recorded_at);
CREATE INDEX sessions_not_before_recorded_idx ON sessions_not_before (recorded_at);

-- Down Migration
DROP TABLE sessions_not_before;
DROP TABLE ended_sessions;
