-- Up Migration

-- posting_context (migration 011) with the comment replied to looked for by its key alone, whether it is deleted
-- told apart once it is found. A connection keeps the plan it made when the comments were few (a deployment's
-- first minutes, before autovacuum's first analysis): asked for live comments, it took a scan of the page index
-- of the live ones (then a page or two) over the key, and read every live comment for each reply as the table
-- grew (test/young-table.query-plans.test.ts). No partial index serves a condition that leaves out deleted_at.
CREATE OR REPLACE FUNCTION posting_context(
  target_kind text,
  target_key uuid,
  writer uuid,
  names_given text[],
  reply_to uuid
) RETURNS TABLE (author json, target json, named json, parent json)
LANGUAGE plpgsql STABLE SET plan_cache_mode = force_generic_plan SET search_path FROM CURRENT AS $$
BEGIN
  RETURN QUERY
  SELECT
    (SELECT json_build_object('id', u.id, 'username', u.username, 'avatarUrl', u.avatar_url, 'revision', u.revision)
       FROM users u WHERE u.id = writer),
    (SELECT json_build_object('ownerId', known.owner_id, 'deleted', known.deleted, 'ownerBlocksCaller',
              EXISTS (SELECT 1 FROM user_relations r WHERE r.user_id = known.owner_id AND r.target_id = writer AND r.blocked))
       FROM (SELECT i.author_id AS owner_id, i.deleted FROM content_items i WHERE i.id = target_key AND i.content_type = target_kind
             UNION ALL
             SELECT k.owner_id, k.deleted FROM known_collections k WHERE k.id = target_key AND target_kind = 'collection') AS known),
    (SELECT coalesce(json_agg(json_build_object('name', lower(u.username), 'id', u.id, 'blocksAuthor',
              EXISTS (SELECT 1 FROM user_relations r WHERE r.user_id = u.id AND r.target_id = writer AND r.blocked))), '[]')
       FROM users u WHERE lower(u.username) = ANY(names_given)),
    (SELECT CASE WHEN c.deleted_at IS NULL THEN json_build_object('id', c.id, 'authorId', c.author_id, 'parentId', c.parent_id) END
       FROM comments c
      WHERE c.id = reply_to AND (c.target_type, c.target_id) IS NOT DISTINCT FROM (target_kind, target_key));
END;
$$;

-- Down Migration
CREATE OR REPLACE FUNCTION posting_context(
  target_kind text,
  target_key uuid,
  writer uuid,
  names_given text[],
  reply_to uuid
) RETURNS TABLE (author json, target json, named json, parent json)
LANGUAGE plpgsql STABLE SET plan_cache_mode = force_generic_plan SET search_path FROM CURRENT AS $$
BEGIN
  RETURN QUERY
  SELECT
    (SELECT json_build_object('id', u.id, 'username', u.username, 'avatarUrl', u.avatar_url, 'revision', u.revision)
       FROM users u WHERE u.id = writer),
    (SELECT json_build_object('ownerId', known.owner_id, 'deleted', known.deleted, 'ownerBlocksCaller',
              EXISTS (SELECT 1 FROM user_relations r WHERE r.user_id = known.owner_id AND r.target_id = writer AND r.blocked))
       FROM (SELECT i.author_id AS owner_id, i.deleted FROM content_items i WHERE i.id = target_key AND i.content_type = target_kind
             UNION ALL
             SELECT k.owner_id, k.deleted FROM known_collections k WHERE k.id = target_key AND target_kind = 'collection') AS known),
    (SELECT coalesce(json_agg(json_build_object('name', lower(u.username), 'id', u.id, 'blocksAuthor',
              EXISTS (SELECT 1 FROM user_relations r WHERE r.user_id = u.id AND r.target_id = writer AND r.blocked))), '[]')
       FROM users u WHERE lower(u.username) = ANY(names_given)),
    (SELECT json_build_object('id', c.id, 'authorId', c.author_id, 'parentId', c.parent_id)
       FROM comments c
      WHERE c.id = reply_to AND (c.target_type, c.target_id) IS NOT DISTINCT FROM (target_kind, target_key)
        AND c.deleted_at IS NULL);
END;
$$;
