/**
 * The current time as ISO-8601 UTC with milliseconds, the format of every stored timestamp. The
 * text is kept for the millisecond it names: formatting a date cost about a twentieth of an append,
 * and appends come many to a millisecond (in a Durable Object the clock stands still while a
 * request runs).
 */
export function nowIso(): string {
  const now = Date.now();
  if (now !== lastNow) {
    lastNow = now;
    lastIso = new Date(now).toISOString();
  }
  return lastIso;
}

let lastNow = Number.NaN;
let lastIso = "";
