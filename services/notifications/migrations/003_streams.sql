-- Up Migration

-- A notification's place among its recipient's notifications, in the order they were stored: a stream
-- resumes after the last one it sent (docs/api.md §9). Taken from the recipient's counts row, whose lock
-- the storing transaction holds until it commits, so that a recipient's notifications commit in sequence
-- order: whoever has read sequence n has every one before it. A retraction's tombstone has none.
ALTER TABLE notifications ADD COLUMN sequence bigint;
UPDATE notifications n SET sequence = ordered.sequence
  FROM (SELECT id, row_number() OVER (PARTITION BY recipient_id ORDER BY created_at, id) AS sequence FROM notifications) ordered
 WHERE n.id = ordered.id;
CREATE UNIQUE INDEX notifications_sequence_idx ON notifications (recipient_id, sequence);

-- `version` changes whenever anything the recipient's listing or unread count shows changes: it is their
-- ETag (docs/api.md §7), answered with one primary-key read.
ALTER TABLE notification_counts
  ADD COLUMN last_sequence bigint NOT NULL DEFAULT 0,
  ADD COLUMN version bigint NOT NULL DEFAULT 0;
UPDATE notification_counts c SET last_sequence = coalesce((SELECT max(sequence) FROM notifications n WHERE n.recipient_id = c.recipient_id), 0);

-- A listing shows its actors' current names and avatars (from the users read model): when one changes,
-- or an actor the model did not know yet arrives, every listing that shows them has a new version.
CREATE INDEX notifications_actor_idx ON notifications (actor_id, recipient_id);
CREATE FUNCTION bump_versions_of_actor() RETURNS trigger LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
BEGIN
  UPDATE notification_counts SET version = version + 1
   WHERE recipient_id IN (SELECT DISTINCT recipient_id FROM notifications WHERE actor_id = NEW.id);
  RETURN NULL;
END;
$$;
CREATE TRIGGER actor_arrived AFTER INSERT ON users FOR EACH ROW EXECUTE FUNCTION bump_versions_of_actor();
CREATE TRIGGER actor_changed AFTER UPDATE ON users FOR EACH ROW
  WHEN (OLD.username IS DISTINCT FROM NEW.username OR OLD.avatar_url IS DISTINCT FROM NEW.avatar_url)
  EXECUTE FUNCTION bump_versions_of_actor();

-- Single-use tickets that open a stream where a browser cannot send a header: only a hash is kept. A
-- browser's EventSource reconnects by itself to the same URL, sending the id of the last event it got: a
-- used ticket opens a stream again only with such an id of its user's (`used_at`, docs/api.md §9).
CREATE TABLE stream_tickets (
  ticket_hash bytea PRIMARY KEY,
  recipient_id uuid NOT NULL,
  expires_at timestamptz NOT NULL,
  used_at timestamptz
);
CREATE INDEX stream_tickets_expiry_idx ON stream_tickets (expires_at);

-- The streams open on any instance, so that a user has at most five however many instances hold them:
-- opening a sixth closes the oldest, wherever it is (`notifications.streams.replaced`). A row an instance
-- left when it died counts until newer streams push it out.
CREATE TABLE open_streams (
  id uuid PRIMARY KEY,
  recipient_id uuid NOT NULL,
  opened_at timestamptz NOT NULL
);
CREATE INDEX open_streams_recipient_idx ON open_streams (recipient_id, opened_at DESC, id DESC);

-- Down Migration
DROP TABLE open_streams;
DROP TABLE stream_tickets;
DROP TRIGGER actor_changed ON users;
DROP TRIGGER actor_arrived ON users;
DROP FUNCTION bump_versions_of_actor();
DROP INDEX notifications_actor_idx;
ALTER TABLE notification_counts DROP COLUMN version, DROP COLUMN last_sequence;
DROP INDEX notifications_sequence_idx;
ALTER TABLE notifications DROP COLUMN sequence;
