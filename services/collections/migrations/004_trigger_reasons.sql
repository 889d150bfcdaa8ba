-- Up Migration

-- Why each trigger of this schema is a trigger (docs/architecture.md's table of triggers shows them).
COMMENT ON TRIGGER saved_items_inserted ON saved_items IS
  'The totals must follow every change of saved_items in its own transaction, once per statement however many rows, seeds and bulk saves included.';
COMMENT ON TRIGGER saved_items_deleted ON saved_items IS
  'Saved items also go by cascade and by forget_deleted_content, statements that name no total; once per statement however many rows.';
COMMENT ON TRIGGER saved_items_updated ON saved_items IS
  'collection_count changes only by count_collection_items, itself a trigger; the item moves between standalone and not with it.';
COMMENT ON TRIGGER collection_items_inserted ON collection_items IS
  'Counts a collection''s items and each saved item''s collections in the transaction of the insert, once per statement.';
COMMENT ON TRIGGER collection_items_deleted ON collection_items IS
  'Places in collections also go by cascade when their saved item is deleted, a statement that names no collection.';
COMMENT ON TRIGGER content_items_deleted ON content_items IS
  'The content directory''s handler (libs/directory) records a deletion knowing nothing of saved items; this adds the consequence here, in its transaction (docs/api.md §6).';

-- Down Migration
COMMENT ON TRIGGER content_items_deleted ON content_items IS NULL;
COMMENT ON TRIGGER collection_items_deleted ON collection_items IS NULL;
COMMENT ON TRIGGER collection_items_inserted ON collection_items IS NULL;
COMMENT ON TRIGGER saved_items_updated ON saved_items IS NULL;
COMMENT ON TRIGGER saved_items_deleted ON saved_items IS NULL;
COMMENT ON TRIGGER saved_items_inserted ON saved_items IS NULL;
