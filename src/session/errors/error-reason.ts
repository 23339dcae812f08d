/**
 * A driver's error as an Arbor message or a log line names it: its code and the first line of its
 * message (at most 200 characters), never a stack or a statement's values. `code` stands in for
 * the error's own where the code was read elsewhere (a Durable Object puts SQLite's code in the
 * message text). One wording for every place that wraps or logs a driver's error: the backends'
 * error mapping, `openSqlite()`, the CLI's connection errors and the server's outage log.
 */
export function errorReason(error: unknown, code?: string): string {
  const { code: own, message } = (error ?? {}) as {
    code?: unknown;
    message?: unknown;
  };
  const codeText = code ?? (typeof own === "string" ? own : "");
  const text =
    typeof message === "string" && message
      ? message.split("\n")[0]!.slice(0, 200)
      : "";
  if (codeText && text && !text.includes(codeText))
    return `${codeText}: ${text}`;
  return text || codeText || String(error);
}
