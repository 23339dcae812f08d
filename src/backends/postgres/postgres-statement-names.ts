/*
 * Prepared statements for `pg` (docs/postgres.md#prepared-statements). node-postgres sends
 * every unnamed statement through PostgreSQL's parser and planner again; a named one is parsed once
 * per connection and then only bound. On the server benchmark's mixed workload that was the
 * difference between 0.54x and 0.72x of SQLite's throughput for one process, with less CPU per
 * request on both sides. Arbor's statements are fixed texts per call site, so the set of names is
 * small and bounded; a text that is not (a batch whose placeholders grow with its rows) or that
 * would not profit (a search, whose best plan depends on how common its terms are) stays unnamed.
 *
 * Where named statements cannot work, PostgreSQL says so: a pooler in transaction mode (PgBouncer
 * before 1.21) answers that a statement does not exist or already exists, and a plan whose result
 * type a migration changed cannot run. The first such answer turns naming off for the client for
 * good, and a statement outside a transaction is retried once, unnamed.
 */

/** A statement as node-postgres receives it: `$n` placeholders, and a name when it is prepared. */
export interface PgStatement {
  text: string;
  name?: string;
}

/** The statement names of one client: one per distinct text, up to `MAX_NAMED` texts. */
export class StatementNames {
  #statements = new Map<string, PgStatement>();
  #enabled = true;

  constructor(private readonly number: (sql: string) => string) {}

  /** The statement to send for `sql` with `count` parameters. */
  statement(sql: string, count: number): PgStatement {
    const known = this.#statements.get(sql);
    if (known) return this.#enabled ? known : { text: known.text };
    const text = count > 0 ? this.number(sql) : sql;
    if (!this.#enabled || !worthNaming(sql, count)) return { text };
    if (this.#statements.size >= MAX_NAMED) return { text };
    const statement = { text, name: statementName(text) };
    this.#statements.set(sql, statement);
    return statement;
  }

  /**
   * Whether `error` says named statements cannot be used over this client; when it does, naming
   * stops for every later statement.
   */
  refuses(error: unknown): boolean {
    if (!this.#enabled || !isNamingFailure(error)) return false;
    this.#enabled = false;
    return true;
  }
}

// --- Internal helpers ---

/** Distinct texts named per client; beyond it statements go unnamed (memory stays bounded). */
const MAX_NAMED = 256;

/** Longer texts or more parameters mean a statement built per call (batches). */
const MAX_NAMED_CHARS = 16_384;
const MAX_NAMED_PARAMS = 64;

/** Whether a statement with this text and `count` parameters is worth preparing. */
export function worthNaming(sql: string, count: number): boolean {
  if (count === 0 || count > MAX_NAMED_PARAMS) return false;
  if (sql.length > MAX_NAMED_CHARS) return false;
  // Full-text and vector searches: a plan made for one query's terms can be a poor one for
  // another's, and PostgreSQL would settle on one generic plan after five runs.
  return !sql.includes("@@") && !sql.includes("<=>") && !sql.includes("<#>");
}

/**
 * SQLSTATEs of a statement name the connection does not have (26000) or already has (42P05), as
 * a transaction-mode pooler causes, and of a cached plan whose result type changed (0A000).
 */
function isNamingFailure(error: unknown): boolean {
  const { code, message } = (error ?? {}) as {
    code?: unknown;
    message?: unknown;
  };
  if (code === "26000" || code === "42P05") return true;
  return (
    code === "0A000" &&
    typeof message === "string" &&
    /cached plan must not change result type/i.test(message)
  );
}

/** A name unique to the text for practical purposes: two 32-bit FNV-1a hashes and the length. */
function statementName(text: string): string {
  let a = 0x811c9dc5;
  let b = 0x01000193;
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    a = Math.imul(a ^ code, 0x01000193);
    b = Math.imul(b ^ code, 0x5bd1e995);
  }
  return `arbor_${(a >>> 0).toString(36)}_${(b >>> 0).toString(36)}_${text.length.toString(36)}`;
}
