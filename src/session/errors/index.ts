export { ARBOR_ERROR_CODES, type ArborErrorCode } from "./codes.js";
export {
  ArborError,
  ArborTypeError,
  ARBOR_ERROR_MARKER,
  invalidArgument,
  isArborError,
  type ArborErrorLike,
  type ArborErrorOptions,
} from "./arbor-error.js";
export { SessionAccessError } from "./session-access-error.js";
export { errorReason } from "./error-reason.js";
