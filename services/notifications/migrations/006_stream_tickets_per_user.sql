-- Up Migration

-- A user holds at most STREAM_TICKETS_PER_USER unused tickets (docs/api.md §9): issuing one more revokes
-- the oldest, and clears the user's tickets that can no longer open or resume a stream, both found by user.
CREATE INDEX stream_tickets_recipient_idx ON stream_tickets (recipient_id, expires_at);

-- Down Migration
DROP INDEX stream_tickets_recipient_idx;
