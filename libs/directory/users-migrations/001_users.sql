-- Up Migration

-- What this service knows of users: enough to show an author and to resolve a @name. Fed by the users
-- service's events; `revision` decides which of two updates is the newer one.
CREATE TABLE users (
  id uuid PRIMARY KEY,
  username text NOT NULL,
  avatar_url text,
  revision integer NOT NULL
);

CREATE INDEX users_username_idx ON users (lower(username));

-- Down Migration
DROP TABLE users;
