-- Up Migration

-- A retracted notification stays as a row but is shown nowhere: an actor's new name or avatar changes
-- the listings that show one of their notifications, and no other (their ETags, docs/api.md §7).
CREATE OR REPLACE FUNCTION bump_versions_of_actor() RETURNS trigger LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
BEGIN
  UPDATE notification_counts SET version = version + 1
   WHERE recipient_id IN (SELECT DISTINCT recipient_id FROM notifications WHERE actor_id = NEW.id AND retracted_at IS NULL);
  RETURN NULL;
END;
$$;

-- Down Migration
CREATE OR REPLACE FUNCTION bump_versions_of_actor() RETURNS trigger LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
BEGIN
  UPDATE notification_counts SET version = version + 1
   WHERE recipient_id IN (SELECT DISTINCT recipient_id FROM notifications WHERE actor_id = NEW.id);
  RETURN NULL;
END;
$$;
