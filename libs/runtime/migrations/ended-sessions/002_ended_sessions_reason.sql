-- Up Migration

-- Why each session ended (the `reason` of `user.session.ended`), so that the 401 its access tokens get says
-- whether the account was deleted (docs/api.md §2) through a restart too. None on the ends kept before.
ALTER TABLE ended_sessions ADD COLUMN reason text;

-- Down Migration
ALTER TABLE ended_sessions DROP COLUMN reason;
