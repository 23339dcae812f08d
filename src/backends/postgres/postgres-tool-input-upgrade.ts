import {
  decodeMessage,
  searchableText,
} from "../../session/messages/message-codec.js";
import type { PostgresQueryable } from "./postgres-client.js";
import { indexText } from "./postgres-search-text.js";
import { JSON_PARAM } from "./postgres-sql.js";

/** Rows rewritten per statement, so a large table never loads at once. */
const BATCH = 500;

/**
 * Schema v5's data step: tool-call inputs became searchable (docs/behavior/search.md#tool-calls),
 * so the search text of every stored message that may hold a tool part is rebuilt (see
 * `rewriteToolCallSearchText`). Other messages keep their search text as it is.
 */
export async function upgradeToolInputSearchText(
  db: PostgresQueryable,
): Promise<void> {
  const [table] = await db.query<{ present: boolean }>(
    "SELECT to_regclass('assistant_messages') IS NOT NULL AS present",
  );
  if (table?.present) await rewriteToolCallSearchText(db, false);
}

/**
 * Rebuilds the search text of every stored message that may hold a tool part (its JSON mentions
 * `tool-` or `dynamic-tool`), with or without tool outputs; `content_tsv` follows, being
 * generated from it. In batches of `BATCH` rows by `seq`, so a large table never loads at once.
 * Returns how many messages it read.
 */
export async function rewriteToolCallSearchText(
  db: PostgresQueryable,
  toolOutputs: boolean,
): Promise<number> {
  let after = 0;
  let read = 0;
  for (;;) {
    const rows = await db.query<{ seq: string | number; content: string }>(
      `SELECT seq, content FROM assistant_messages
       WHERE seq > ? AND (content LIKE '%tool-%' OR content LIKE '%dynamic-tool%')
       ORDER BY seq LIMIT ?`,
      [after, BATCH],
    );
    if (rows.length === 0) return read;
    read += rows.length;
    const updates = rows.map((row) => {
      const message = decodeMessage(row.content);
      return {
        seq: Number(row.seq),
        text: message ? indexText(searchableText(message, toolOutputs)) : "",
      };
    });
    await db.query(
      `UPDATE assistant_messages AS m SET text_content = u.text
       FROM json_to_recordset(${JSON_PARAM}) AS u(seq BIGINT, text TEXT)
       WHERE m.seq = u.seq AND m.text_content IS DISTINCT FROM u.text`,
      [JSON.stringify(updates)],
    );
    after = updates.at(-1)!.seq;
  }
}
