import { ADVISORY_LOCK_NAMESPACE } from "./postgres-locking.js";

/**
 * The attachment tables, `arbor_attach()` and the triggers that release references (schema
 * migration v3). Deleting a message row, by any statement, drops its references; dropping a
 * reference deletes the attachments left without any. Both sides take a transaction-level
 * advisory lock per hash (sorted) before they look, and look with a fresh snapshot, so a release
 * never deletes bytes that a concurrent write in another session has just referenced.
 */
export function attachmentStatements(): string[] {
  const lock = `pg_advisory_xact_lock(${ATTACHMENT_LOCK_NAMESPACE}, hashtext(h))`;
  return [
    `CREATE TABLE IF NOT EXISTS arbor_attachments (
      hash TEXT PRIMARY KEY,
      media_type TEXT NOT NULL,
      byte_length BIGINT NOT NULL,
      created_at TIMESTAMPTZ NOT NULL DEFAULT clock_timestamp()
    )`,
    `CREATE TABLE IF NOT EXISTS arbor_attachment_chunks (
      hash TEXT NOT NULL REFERENCES arbor_attachments (hash) ON DELETE CASCADE,
      chunk_index INTEGER NOT NULL,
      data BYTEA NOT NULL,
      PRIMARY KEY (hash, chunk_index)
    )`,
    `CREATE TABLE IF NOT EXISTS arbor_attachment_refs (
      session_id TEXT NOT NULL,
      message_id TEXT NOT NULL,
      hash TEXT NOT NULL,
      extra_bytes BIGINT NOT NULL,
      PRIMARY KEY (session_id, message_id, hash)
    )`,
    `CREATE INDEX IF NOT EXISTS idx_arbor_attachment_refs_hash ON arbor_attachment_refs (hash)`,
    `CREATE OR REPLACE FUNCTION arbor_attach(p_session TEXT, p_message TEXT, p_input JSON)
    RETURNS INTEGER LANGUAGE plpgsql VOLATILE AS $$
    DECLARE
      v RECORD;
    BEGIN
      IF json_array_length(p_input) = 0 AND NOT EXISTS (SELECT 1 FROM arbor_attachment_refs
          WHERE session_id = p_session AND message_id = p_message) THEN
        RETURN 0;
      END IF;
      PERFORM ${lock} FROM (SELECT DISTINCT a.hash AS h
        FROM json_to_recordset(p_input) AS a(hash TEXT) ORDER BY 1) AS sorted;
      DELETE FROM arbor_attachment_refs WHERE session_id = p_session AND message_id = p_message
        AND hash NOT IN (SELECT a.hash FROM json_to_recordset(p_input) AS a(hash TEXT));
      FOR v IN SELECT * FROM json_to_recordset(p_input)
          AS a(hash TEXT, media_type TEXT, byte_length BIGINT, extra_bytes BIGINT, chunks JSON) LOOP
        INSERT INTO arbor_attachments (hash, media_type, byte_length)
          VALUES (v.hash, v.media_type, v.byte_length) ON CONFLICT (hash) DO NOTHING;
        IF FOUND THEN
          INSERT INTO arbor_attachment_chunks (hash, chunk_index, data)
            SELECT v.hash, c.ordinality - 1, decode(c.value, 'base64')
            FROM json_array_elements_text(v.chunks) WITH ORDINALITY AS c(value, ordinality);
        END IF;
        INSERT INTO arbor_attachment_refs (session_id, message_id, hash, extra_bytes)
          VALUES (p_session, p_message, v.hash, v.extra_bytes)
          ON CONFLICT (session_id, message_id, hash) DO UPDATE SET extra_bytes = excluded.extra_bytes;
      END LOOP;
      RETURN 1;
    END $$`,
    `CREATE OR REPLACE FUNCTION arbor_release_message_attachments()
    RETURNS TRIGGER LANGUAGE plpgsql AS $$
    BEGIN
      DELETE FROM arbor_attachment_refs AS r USING old_messages AS o
        WHERE r.session_id = o.session_id AND r.message_id = o.id
          AND NOT EXISTS (SELECT 1 FROM assistant_messages AS m
            WHERE m.session_id = o.session_id AND m.id = o.id);
      RETURN NULL;
    END $$`,
    `CREATE OR REPLACE FUNCTION arbor_release_attachments()
    RETURNS TRIGGER LANGUAGE plpgsql AS $$
    BEGIN
      IF NOT EXISTS (SELECT 1 FROM old_refs) THEN
        RETURN NULL;
      END IF;
      PERFORM ${lock} FROM (SELECT DISTINCT hash AS h FROM old_refs ORDER BY 1) AS sorted;
      DELETE FROM arbor_attachments AS a
        WHERE a.hash IN (SELECT hash FROM old_refs)
          AND NOT EXISTS (SELECT 1 FROM arbor_attachment_refs AS r WHERE r.hash = a.hash);
      RETURN NULL;
    END $$`,
    `DROP TRIGGER IF EXISTS arbor_messages_release_attachments ON assistant_messages`,
    `CREATE TRIGGER arbor_messages_release_attachments AFTER DELETE ON assistant_messages
      REFERENCING OLD TABLE AS old_messages
      FOR EACH STATEMENT EXECUTE FUNCTION arbor_release_message_attachments()`,
    `DROP TRIGGER IF EXISTS arbor_attachment_refs_release ON arbor_attachment_refs`,
    `CREATE TRIGGER arbor_attachment_refs_release AFTER DELETE ON arbor_attachment_refs
      REFERENCING OLD TABLE AS old_refs
      FOR EACH STATEMENT EXECUTE FUNCTION arbor_release_attachments()`,
  ];
}

// --- Internal helpers ---

/** First key of the attachment locks ("ARBA"), beside the session locks' "ARBR". */
const ATTACHMENT_LOCK_NAMESPACE = ADVISORY_LOCK_NAMESPACE - 17;
