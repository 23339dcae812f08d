import type { SqlProvider } from "../../session/contracts/sql-provider.js";
import { assertSchemaNotNewer } from "./sql-schema-version.js";

/**
 * Runs `work` inside `agent.transaction` when the store has one (SQLite `BEGIN IMMEDIATE`), so a
 * read-then-write or multi-statement write is atomic across processes and a failure leaves the
 * store as it was. Without it (Durable Objects) the single-threaded host keeps the statements
 * together.
 */
export function atomically<T>(agent: SqlProvider, work: () => T): T {
  return writeChecked(agent, () =>
    typeof agent.transaction === "function" ? agent.transaction(work) : work(),
  );
}

/**
 * Runs a write; when it fails, first checks whether another process moved the store to a newer
 * schema meanwhile (a rolling deploy), and then throws the typed `SCHEMA_VERSION` error instead
 * of the statement's own (`assertSchemaNotNewer`).
 */
export function writeChecked<T>(agent: SqlProvider, work: () => T): T {
  try {
    return work();
  } catch (error) {
    assertSchemaNotNewer(agent);
    throw error;
  }
}

/**
 * A statement built at run time in the shape of a tagged template's strings, for `agent.sql(…)`:
 * each `?` in `text` is where a bound value goes. `text` must hold no other `?`.
 */
export function sqlTemplate(text: string): TemplateStringsArray {
  const strings = text.split("?");
  return Object.assign(strings, {
    raw: strings.slice(),
  });
}
