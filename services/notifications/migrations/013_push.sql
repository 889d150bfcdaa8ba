-- Up Migration

-- Web Push subscriptions (docs/api.md §11.3, docs/push.md): a browser's endpoint and keys, owned by the
-- session that made it, which ends it. One row per endpoint per user: subscribing again replaces it.
-- `busy_until` is the lease of the sender that is pushing to it now, so that one endpoint gets one push
-- at a time, whichever instance sends.
CREATE TABLE push_subscriptions (
  id uuid PRIMARY KEY,
  user_id uuid NOT NULL,
  -- The `sid` of the token that subscribed; null for a token from before sessions.
  session_id uuid,
  endpoint text NOT NULL CHECK (length(endpoint) <= 2048),
  p256dh text NOT NULL,
  auth text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
  busy_until timestamptz,
  UNIQUE (user_id, endpoint)
);
CREATE INDEX push_subscriptions_user_idx ON push_subscriptions (user_id, created_at);
CREATE INDEX push_subscriptions_session_idx ON push_subscriptions (session_id) WHERE session_id IS NOT NULL;

-- The push outbox: one row per notification per subscription of its recipient, written in the
-- transaction that stores the notification, deleted once the push service took it (or gave up on it).
CREATE TABLE push_deliveries (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  subscription_id uuid NOT NULL REFERENCES push_subscriptions (id) ON DELETE CASCADE,
  notification_id uuid NOT NULL REFERENCES notifications (id) ON DELETE CASCADE,
  created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
  available_at timestamptz NOT NULL DEFAULT clock_timestamp(),
  attempts integer NOT NULL DEFAULT 0,
  UNIQUE (subscription_id, notification_id)
);
CREATE INDEX push_deliveries_due_idx ON push_deliveries (available_at);
CREATE INDEX push_deliveries_notification_idx ON push_deliveries (notification_id);

-- A push row for each subscription of the recipient of a notification just stored, and a wake-up for the
-- senders on `<schema>_push`. store_notification (migrations/011_store_notification.sql) stores only what
-- the recipient's preferences let through, so a type turned off queues no push.
CREATE FUNCTION queue_pushes() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO push_deliveries (subscription_id, notification_id)
  SELECT s.id, NEW.id FROM push_subscriptions s WHERE s.user_id = NEW.recipient_id;
  IF FOUND THEN
    PERFORM pg_notify(TG_TABLE_SCHEMA || '_push', '');
  END IF;
  RETURN NULL;
END;
$$;
-- A mention taken back before its notification came is stored already retracted: nothing to push.
CREATE TRIGGER queue_pushes AFTER INSERT ON notifications FOR EACH ROW WHEN (NEW.retracted_at IS NULL)
  EXECUTE FUNCTION queue_pushes();
COMMENT ON TRIGGER queue_pushes ON notifications IS
  'store_notification stores a notification in one round trip, and other paths may store them too; this queues its pushes (docs/api.md §11.3) in the same transaction without another round trip, so a restart between storing and sending loses none.';

-- Down Migration
DROP TRIGGER queue_pushes ON notifications;
DROP FUNCTION queue_pushes();
DROP TABLE push_deliveries;
DROP TABLE push_subscriptions;
