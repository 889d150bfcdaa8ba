-- Up Migration

-- A used ticket reopens its stream only to resume it, with proof that the client got that stream's events
-- (docs/api.md §9): a URL may be written down where its ticket is read (a log, a proxy's), but the events'
-- ids travel only in the stream and in the `Last-Event-ID` header. `resume_from` is the place in the
-- recipient's sequence the ticket's first stream started at: a resume must name a notification at or after
-- it. `stream_ended_at` is when its latest stream ended (NULL while open, or when its instance died): a
-- resume must come within a short window after it.
ALTER TABLE stream_tickets
  ADD COLUMN resume_from bigint,
  ADD COLUMN stream_ended_at timestamptz;

-- Down Migration
ALTER TABLE stream_tickets DROP COLUMN stream_ended_at, DROP COLUMN resume_from;
