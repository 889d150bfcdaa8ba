-- Up Migration

-- The session of the token a ticket was taken with (docs/api.md §11.1): once that session ends, the
-- ticket opens no stream and resumes none. Null for a ticket of a token from before sessions.
ALTER TABLE stream_tickets ADD COLUMN session_id uuid, ADD COLUMN token_issued_at bigint;

-- Down Migration
ALTER TABLE stream_tickets DROP COLUMN session_id, DROP COLUMN token_issued_at;
