-- Up Migration

-- One row per mention or tag that concerns a user. The actor is an id only: their username and avatar
-- come from the users read model at query time, so a later avatar change shows everywhere.
CREATE TABLE notifications (
  id uuid PRIMARY KEY,
  recipient_id uuid NOT NULL,
  type text NOT NULL CHECK (type IN (
    'mention_recipe_comment', 'mention_collection_comment', 'mention_post_comment', 'tag_recipe', 'tag_post'
  )),
  actor_id uuid NOT NULL,
  content_type text NOT NULL CHECK (content_type IN ('recipe', 'collection', 'post')),
  content_id uuid NOT NULL,
  -- Mentions happen in a comment; tags do not.
  comment_id uuid CHECK ((comment_id IS NOT NULL) = (type LIKE 'mention\_%')),
  is_read boolean NOT NULL DEFAULT false,
  created_at timestamptz NOT NULL,
  -- The event that caused the row: a second line of defence behind processed_events, which may be
  -- pruned one day while this row stays.
  source_event_id uuid NOT NULL UNIQUE
);

-- A user's listing, newest first with its tie-break: page 1 reads `limit` index entries however many
-- notifications the user has.
CREATE INDEX notifications_listing_idx ON notifications (recipient_id, created_at DESC, id DESC);

-- Per recipient, kept in the same statement as every insert and every change of is_read. Counting the
-- rows instead costs time in proportion to them (about 60 ms for a million on the development machine),
-- where these answer the pagination total and the unread count with one primary-key look-up.
CREATE TABLE notification_counts (
  recipient_id uuid PRIMARY KEY,
  total integer NOT NULL CHECK (total >= 0),
  unread integer NOT NULL CHECK (unread >= 0 AND unread <= total)
);

-- Down Migration
DROP TABLE notification_counts;
DROP TABLE notifications;
