import type { ArborErrorCode } from "./codes.js";

/** Marker on every error Arbor creates; survives two copies of Arbor in one app. */
export const ARBOR_ERROR_MARKER: unique symbol = Symbol.for("arbor.error");

export interface ArborErrorOptions {
  cause?: unknown;
}

/** The shape every Arbor error has, whatever built-in class it extends. */
export interface ArborErrorLike extends Error {
  readonly code: ArborErrorCode;
  readonly [ARBOR_ERROR_MARKER]: true;
}

/** An Arbor `Error`. Its `message` is the documented text (docs/errors.md), without prefix. */
export class ArborError extends Error implements ArborErrorLike {
  readonly code: ArborErrorCode;
  readonly [ARBOR_ERROR_MARKER] = true as const;

  constructor(
    code: ArborErrorCode,
    message: string,
    options?: ArborErrorOptions,
  ) {
    super(message, options);
    this.name = "ArborError";
    this.code = code;
  }
}

/** An Arbor `TypeError`: invalid input, such as a malformed message. */
export class ArborTypeError extends TypeError implements ArborErrorLike {
  readonly code: ArborErrorCode;
  readonly [ARBOR_ERROR_MARKER] = true as const;

  constructor(
    code: ArborErrorCode,
    message: string,
    options?: ArborErrorOptions,
  ) {
    super(message, options);
    this.name = "ArborTypeError";
    this.code = code;
  }
}

/**
 * The `INVALID_ARGUMENT` error of a bad call: an `ArborTypeError` whose message is `detail`
 * after the `[arbor] ` prefix. The most common error, so the code and prefix are written once.
 */
export function invalidArgument(detail: string): ArborTypeError {
  return new ArborTypeError("INVALID_ARGUMENT", `[arbor] ${detail}`);
}

/** True for any error created by any copy of Arbor. */
export function isArborError(error: unknown): error is ArborErrorLike {
  return (
    typeof error === "object" &&
    error !== null &&
    (error as Record<symbol, unknown>)[ARBOR_ERROR_MARKER] === true
  );
}
