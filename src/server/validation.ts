import type { Context } from "hono";
import type { ZodError } from "zod";
import { errorResponse } from "./errors.js";

/** What a zod-openapi hook receives when validation fails. */
interface FailedValidation {
  success: false;
  error: ZodError;
  target?: string;
}

const TARGET_NAMES: Record<string, string> = {
  json: "body",
  query: "query",
  param: "path",
  header: "header",
};

/**
 * The `defaultHook` of the app: a failed validation answers 400 `INVALID_REQUEST` whose message
 * names the field (`body.message.role: Invalid option…`), the first three issues at most.
 */
export function validationHook(
  result: { success: true } | FailedValidation,
  c: Context,
): Response | undefined {
  if (result.success) return undefined;
  const where = TARGET_NAMES[result.target ?? ""] ?? "request";
  const issues = result.error.issues.slice(0, 3).map((issue) => {
    const path = [where, ...issue.path.map(String)].join(".");
    return `${path}: ${issue.message}`;
  });
  return errorResponse(c, "INVALID_REQUEST", issues.join("; "));
}
