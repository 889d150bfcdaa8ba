-- Up Migration

-- What each key (e.g. a user) has spent of a named budget in the current fixed window (`spendBudget` in
-- libs/db/src/budgets.ts). Kept in the service's schema, so that every instance of the service spends from
-- the same count; a key's rows of past windows go as it next spends, so there is about one row per key.
CREATE TABLE budgets (
  name text NOT NULL,
  key text NOT NULL,
  window_start timestamptz NOT NULL,
  spent integer NOT NULL CHECK (spent >= 0),
  PRIMARY KEY (name, key, window_start)
);

-- Down Migration
DROP TABLE budgets;
