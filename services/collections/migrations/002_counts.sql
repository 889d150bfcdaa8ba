-- Up Migration

-- The counts the API shows are kept by triggers, in the transaction of whatever changes what they count:
-- a route, a cascade, or a content event handled by the content directory. The triggers run once per
-- statement over its transition table, so a bulk change (a collection of thousands deleted, content
-- saved by thousands deleted, a seed) updates each count once, not once per row.

-- `pagination.total` of a user's saved-items listing, per filter. Reading at most four rows costs the same
-- for ten saved items or a hundred thousand; a COUNT would read every index entry of the user.
CREATE TABLE saved_item_totals (
  user_id uuid NOT NULL,
  content_type text NOT NULL,
  standalone boolean NOT NULL,
  count integer NOT NULL,
  PRIMARY KEY (user_id, content_type, standalone)
);

-- Adds signed amounts per key; keys come in order, so concurrent transactions lock the rows in one order.
CREATE FUNCTION add_to_saved_item_totals(user_ids uuid[], content_types text[], standalones boolean[], amounts integer[])
RETURNS void LANGUAGE sql AS $$
  INSERT INTO saved_item_totals AS totals (user_id, content_type, standalone, count)
  SELECT user_id, content_type, standalone, sum(amount)
    FROM unnest(user_ids, content_types, standalones, amounts) AS change (user_id, content_type, standalone, amount)
   GROUP BY user_id, content_type, standalone
  HAVING sum(amount) <> 0
   ORDER BY user_id, content_type, standalone
  ON CONFLICT (user_id, content_type, standalone) DO UPDATE SET count = totals.count + EXCLUDED.count
$$;

CREATE FUNCTION count_saved_items() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    PERFORM add_to_saved_item_totals(array_agg(user_id), array_agg(content_type), array_agg(collection_count = 0), array_agg(1))
       FROM added;
  ELSIF TG_OP = 'DELETE' THEN
    PERFORM add_to_saved_item_totals(array_agg(user_id), array_agg(content_type), array_agg(collection_count = 0), array_agg(-1))
       FROM removed;
  ELSE
    -- Only a change of collection_count updates a saved item: it moves between standalone and not.
    PERFORM add_to_saved_item_totals(array_agg(user_id), array_agg(content_type), array_agg(standalone), array_agg(amount))
       FROM (SELECT user_id, content_type, collection_count = 0 AS standalone, 1 AS amount FROM added
             UNION ALL
             SELECT user_id, content_type, collection_count = 0, -1 FROM removed) AS change;
  END IF;
  RETURN NULL;
END;
$$;

CREATE TRIGGER saved_items_inserted AFTER INSERT ON saved_items
  REFERENCING NEW TABLE AS added FOR EACH STATEMENT EXECUTE FUNCTION count_saved_items();
CREATE TRIGGER saved_items_deleted AFTER DELETE ON saved_items
  REFERENCING OLD TABLE AS removed FOR EACH STATEMENT EXECUTE FUNCTION count_saved_items();
CREATE TRIGGER saved_items_updated AFTER UPDATE ON saved_items
  REFERENCING OLD TABLE AS removed NEW TABLE AS added FOR EACH STATEMENT EXECUTE FUNCTION count_saved_items();

-- A collection's itemCount and a saved item's collection_count.
CREATE FUNCTION count_collection_items() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    UPDATE saved_items SET collection_count = collection_count + change.amount
      FROM (SELECT saved_item_id, count(*) AS amount FROM added GROUP BY saved_item_id) AS change
     WHERE saved_items.id = change.saved_item_id;
    UPDATE collections SET item_count = item_count + change.amount
      FROM (SELECT collection_id, count(*) AS amount FROM added GROUP BY collection_id) AS change
     WHERE collections.id = change.collection_id;
  ELSE
    -- Finds no saved item when the saved item itself is being deleted (the cascade): its totals went with it.
    UPDATE saved_items SET collection_count = collection_count - change.amount
      FROM (SELECT saved_item_id, count(*) AS amount FROM removed GROUP BY saved_item_id) AS change
     WHERE saved_items.id = change.saved_item_id;
    UPDATE collections SET item_count = item_count - change.amount
      FROM (SELECT collection_id, count(*) AS amount FROM removed GROUP BY collection_id) AS change
     WHERE collections.id = change.collection_id;
  END IF;
  RETURN NULL;
END;
$$;

CREATE TRIGGER collection_items_inserted AFTER INSERT ON collection_items
  REFERENCING NEW TABLE AS added FOR EACH STATEMENT EXECUTE FUNCTION count_collection_items();
CREATE TRIGGER collection_items_deleted AFTER DELETE ON collection_items
  REFERENCING OLD TABLE AS removed FOR EACH STATEMENT EXECUTE FUNCTION count_collection_items();

-- Deleted content leaves every listing and total (docs/api.md §6): its saved items go, and with them their
-- places in collections. `content_items` is the content directory's table in this schema; this trigger
-- runs in the transaction of the directory's handler that records the deletion.
CREATE FUNCTION forget_deleted_content() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM saved_items WHERE content_id = NEW.id AND content_type = NEW.content_type;
  RETURN NULL;
END;
$$;

CREATE TRIGGER content_items_deleted AFTER UPDATE OF deleted ON content_items
  FOR EACH ROW WHEN (NEW.deleted AND NOT OLD.deleted) EXECUTE FUNCTION forget_deleted_content();

-- Down Migration
DROP TRIGGER content_items_deleted ON content_items;
DROP FUNCTION forget_deleted_content();
DROP TRIGGER collection_items_deleted ON collection_items;
DROP TRIGGER collection_items_inserted ON collection_items;
DROP FUNCTION count_collection_items();
DROP TRIGGER saved_items_updated ON saved_items;
DROP TRIGGER saved_items_deleted ON saved_items;
DROP TRIGGER saved_items_inserted ON saved_items;
DROP FUNCTION count_saved_items();
DROP FUNCTION add_to_saved_item_totals(uuid[], text[], boolean[], integer[]);
DROP TABLE saved_item_totals;
