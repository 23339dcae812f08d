/**
 * Codes the CLI adds to Arbor's own (docs/errors.md), for failures only a command line has.
 * Printed as `arbor: <CODE>: <message>` like Arbor's, so scripts can match both.
 */
export const CLI_ERROR_CODES = [
  /** `arbor keys revoke` of an id that is not a key. */
  "API_KEY_NOT_FOUND",
  /** A command that would weaken access (revoking the last key) without `--yes`. */
  "CONFIRMATION_REQUIRED",
  /** `arbor serve` without an API key where one is needed: a public host, or sessions with owners. */
  "AUTH_REQUIRED",
  /** The port `arbor serve` was given is taken. */
  "PORT_IN_USE",
  /** `--out` cannot be written: a folder where a file is wanted, a file where a folder is, no permission. */
  "OUTPUT_UNAVAILABLE",
  /** `--db` names no file, for a command that reads or changes a store rather than creating one. */
  "DATABASE_NOT_FOUND",
] as const;

export type CliErrorCode = (typeof CLI_ERROR_CODES)[number];

/** An error of the CLI itself, with one of `CLI_ERROR_CODES`. */
export class CliError extends Error {
  readonly code: CliErrorCode;

  constructor(code: CliErrorCode, message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = "CliError";
    this.code = code;
  }
}
