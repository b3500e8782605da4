-- Event ids and trace ids become bytes: a tag byte, then 16 bytes for a canonical (lowercase,
-- hyphenated) UUID, the bytes of an even-length run of lowercase hex digits (a W3C trace id), or
-- the UTF-8 of any other text. A UUID id then takes 17 bytes instead of 36 characters in the row
-- and in the primary key (observed_at, event_id, is_violation): with W3C trace ids packed too, a
-- seventh of the store and of what a dropped day has to free (docs/event-store-at-scale.md). Only forms that come back
-- exactly are packed, so every id reads back as it was sent. The writer packs ids itself
-- (lib/ingest/compact-id.ts, the same rules), reads and lookups use these two functions.
-- No semicolon inside a function body: the offline migration path splits a script at each one.

CREATE FUNCTION "baton_compact_id"(id text) RETURNS bytea
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$
  SELECT CASE
    WHEN id ~ '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$' THEN '\x02'::bytea || decode(replace(id, '-', ''), 'hex')
    WHEN id ~ '^([0-9a-f]{2})+$' THEN '\x01'::bytea || decode(id, 'hex')
    ELSE '\x00'::bytea || convert_to(id, 'UTF8')
  END
$$;

CREATE FUNCTION "baton_id_text"(stored bytea) RETURNS text
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$
  SELECT CASE get_byte(stored, 0)
    WHEN 2 THEN encode(substring(stored FROM 2), 'hex')::uuid::text
    WHEN 1 THEN encode(substring(stored FROM 2), 'hex')
    ELSE convert_from(substring(stored FROM 2), 'UTF8')
  END
$$;

-- Rewrites every partition and rebuilds its indexes (the primary key, the violations' id index)
-- in one statement: every row is kept, in the partition it was in. The table is held exclusively
-- until it commits (measured: 102 s for 10 million rows, docs/event-store-at-scale.md).
ALTER TABLE "exclusivity_event"
    ALTER COLUMN "event_id" TYPE BYTEA USING "baton_compact_id"("event_id"),
    ALTER COLUMN "trace_id" TYPE BYTEA USING "baton_compact_id"("trace_id");
