/**
 * The constructor checks of the PostgreSQL classes beyond the client (`checkPostgresClient`), in
 * one place so every class refuses the same arguments alike, when constructed.
 */
import { invalidArgument } from "../../session/errors/index.js";

/** `PostgresSessionProvider`'s session id: a string ("" = no namespace). */
export function checkSessionId(sessionId: unknown): string {
  if (typeof sessionId !== "string") {
    throw invalidArgument(
      "[postgres] PostgresSessionProvider session id must be a string",
    );
  }
  return sessionId;
}

/** `PostgresContextProvider`'s row label: a non-empty string. */
export function checkBlockLabel(label: unknown): string {
  if (typeof label !== "string" || label.length === 0) {
    throw invalidArgument(
      "[postgres] PostgresContextProvider needs a non-empty row label, e.g. `memory_<sessionId>`",
    );
  }
  return label;
}
