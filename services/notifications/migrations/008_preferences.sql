-- Up Migration

-- Which kinds of notification a user has turned on or off (docs/api.md §10); a type with no row is on.
-- A notification of a type turned off is not stored (see src/repository/silences.ts).
CREATE TABLE notification_preferences (
  recipient_id uuid NOT NULL,
  type text NOT NULL,
  enabled boolean NOT NULL,
  -- When it was last set: from then on it decides (the chaos campaign checks so).
  updated_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (recipient_id, type)
);

-- Down Migration
DROP TABLE notification_preferences;
