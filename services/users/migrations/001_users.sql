-- Up Migration
CREATE TABLE users (
  id uuid PRIMARY KEY,
  username text NOT NULL,
  password_hash text NOT NULL,
  avatar_url text,
  -- Grows with every change, so read models elsewhere can ignore stale events.
  revision integer NOT NULL DEFAULT 0,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);

-- Usernames are unique regardless of case, and looked up the same way.
CREATE UNIQUE INDEX users_username_key ON users (lower(username));

-- Down Migration
DROP TABLE users;
