/**
 * The closed set of error codes Arbor attaches to every error it creates.
 * Documented in docs/errors.md; match on `code`, never on `instanceof`.
 */
export const ARBOR_ERROR_CODES = [
  /** A message without a string `id`, a UI role (`system`, `user`, `assistant`) or a `parts` array, or not JSON-representable. */
  "INVALID_MESSAGE",
  /** `Session.create()` / `SessionManager.create()` got something that is not a store. */
  "INVALID_TARGET",
  /** An argument of the wrong type or range (non-finite usage numbers, empty summary, …). */
  "INVALID_ARGUMENT",
  /** A builder method was called after the session initialized. */
  "SESSION_ALREADY_INITIALIZED",
  /** A context block label is taken or reserved. */
  "BLOCK_EXISTS",
  /** A context block label is reserved for Arbor's own rows (`_system_prompt…`). */
  "BLOCK_LABEL_RESERVED",
  /** A context block label is unknown. */
  "BLOCK_NOT_FOUND",
  /** A write went to a read-only block. */
  "BLOCK_READONLY",
  /** A plain write went to a keyed (skill or search) block. */
  "BLOCK_KEYED",
  /** A write would exceed the block's `maxTokens`. */
  "BLOCK_TOO_LARGE",
  /** A block version that does not exist. */
  "BLOCK_VERSION_NOT_FOUND",
  /** `compact()` without `onCompaction()`. */
  "COMPACTION_NOT_CONFIGURED",
  /** The provider lacks an optional capability the call needs (search, removing compactions, …). */
  "NOT_SUPPORTED",
  /** A session id without a registry row, or hidden from this owner. */
  "SESSION_NOT_FOUND",
  /** The session belongs to another owner. */
  "SESSION_FORBIDDEN",
  /** A session id that already exists. */
  "SESSION_EXISTS",
  /** A message id that is already taken in the session (imports without replace). */
  "MESSAGE_EXISTS",
  /** A message id that is not in the session. */
  "MESSAGE_NOT_FOUND",
  /** A snapshot of an unknown format or version, or with a bad signature. */
  "INVALID_SNAPSHOT",
  /** The storage schema is newer than this version of Arbor understands. */
  "SCHEMA_VERSION",
  /** The PostgreSQL schema is not applied, or older than this Arbor needs: run `applyPostgresSchema()`. */
  "SCHEMA_MISSING",
  /** A write kept losing to concurrent writes of the same session and gave up (PostgreSQL `execute`-style connections). */
  "WRITE_CONFLICT",
  /** A turn has no messages to send to the model (`assembleContext()`, the agent turn runner). */
  "EMPTY_CONTEXT",
  /** An optional peer dependency the call needs is not installed (`@ai-sdk/openai-compatible`, …). */
  "MISSING_DEPENDENCY",
  /** The storage cannot be reached or opened now (a database outage, SQLite busy past its timeout, `openSqlite()` on a directory); retrying later may succeed. HTTP 503. */
  "STORAGE_UNAVAILABLE",
  /** The storage failed for another reason (a closed handle, a full disk, a statement it refused); `cause` holds the driver's error. HTTP 500. */
  "STORAGE_ERROR",
  /** A file or body that cannot be imported (unknown format, bad JSON, a broken tree); the message names the line or node. */
  "INVALID_IMPORT",
  /** Session metadata over a limit (entries, key or value length, total bytes); the message names it. Nothing is written. */
  "METADATA_TOO_LARGE",
] as const;

export type ArborErrorCode = (typeof ARBOR_ERROR_CODES)[number];
