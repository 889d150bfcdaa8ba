-- Up Migration

-- A NOTIFY reaches every listening connection of the database, and a commit that notifies takes a lock the
-- other notifying commits wait for. A connection that asks for it (outbox.wake = 'writer', as the outbox
-- does: libs/outbox/src/writer-wake.ts) is told instead, by a notice to itself, and its own process wakes
-- its push sender once the transaction has committed (src/push/sender.ts). Every other writer still
-- notifies.
CREATE OR REPLACE FUNCTION queue_pushes() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO push_deliveries (subscription_id, notification_id)
  SELECT s.id, NEW.id FROM push_subscriptions s WHERE s.user_id = NEW.recipient_id;
  IF FOUND THEN
    IF current_setting('outbox.wake', true) = 'writer' THEN
      RAISE NOTICE 'push queued';
    ELSE
      PERFORM pg_notify(TG_TABLE_SCHEMA || '_push', '');
    END IF;
  END IF;
  RETURN NULL;
END;
$$;

-- Down Migration
CREATE OR REPLACE FUNCTION queue_pushes() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO push_deliveries (subscription_id, notification_id)
  SELECT s.id, NEW.id FROM push_subscriptions s WHERE s.user_id = NEW.recipient_id;
  IF FOUND THEN
    PERFORM pg_notify(TG_TABLE_SCHEMA || '_push', '');
  END IF;
  RETURN NULL;
END;
$$;
