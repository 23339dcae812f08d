/**
 * Text that a text column cannot keep exactly: a NUL, which PostgreSQL refuses (`invalid byte
 * sequence`), and a lone surrogate, which PostgreSQL stores as U+FFFD (two different ids become
 * one) and SQLite as bytes that are not UTF-8 (read back as U+FFFD). Message text is stored as
 * JSON, where both are escaped; ids, names, owners and metadata are stored as they are, so they
 * are checked before any write.
 */
const UNSTORABLE =
  /\u0000|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** Why `text` cannot be stored exactly as a key or name, or `null` when it can. */
export function unstorableReason(text: string): string | null {
  const found = UNSTORABLE.exec(text);
  if (!found) return null;
  return found[0] === "\u0000"
    ? "contains a NUL character (U+0000)"
    : `contains a lone surrogate (U+${found[0].charCodeAt(0).toString(16).toUpperCase()})`;
}
