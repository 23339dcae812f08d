/** A line diff (Myers' O(ND) algorithm) for block versions and the frozen prompt. */

/** One line of a diff: kept, added or removed. */
export interface DiffLine {
  kind: "same" | "add" | "remove";
  text: string;
}

/** Above this many edits the diff gives up and shows "all removed, all added". */
const MAX_EDITS = 1000;

/** The lines that turn `before` into `after`, in order. */
export function diffLines(before: string, after: string): DiffLine[] {
  const a = before === "" ? [] : before.split("\n");
  const b = after === "" ? [] : after.split("\n");
  const trace = shortestEdit(a, b);
  if (!trace) {
    return [
      ...a.map((text) => ({ kind: "remove" as const, text })),
      ...b.map((text) => ({ kind: "add" as const, text })),
    ];
  }
  return backtrack(trace, a, b);
}

// --- Internal helpers ---

function shortestEdit(a: string[], b: string[]): Int32Array[] | null {
  const max = Math.min(a.length + b.length, MAX_EDITS);
  const offset = max + 1;
  const v = new Int32Array(2 * max + 3);
  const trace: Int32Array[] = [];
  for (let d = 0; d <= max; d++) {
    trace.push(v.slice());
    for (let k = -d; k <= d; k += 2) {
      let x =
        k === -d || (k !== d && v[offset + k - 1]! < v[offset + k + 1]!)
          ? v[offset + k + 1]!
          : v[offset + k - 1]! + 1;
      let y = x - k;
      while (x < a.length && y < b.length && a[x] === b[y]) {
        x++;
        y++;
      }
      v[offset + k] = x;
      if (x >= a.length && y >= b.length) {
        trace.push(v.slice());
        return trace;
      }
    }
  }
  return null;
}

function backtrack(trace: Int32Array[], a: string[], b: string[]): DiffLine[] {
  const offset = (trace[0]!.length - 3) / 2 + 1;
  const lines: DiffLine[] = [];
  let x = a.length;
  let y = b.length;
  // trace[d] holds v before round d; the final entry is v after the last round.
  for (let d = trace.length - 2; d >= 0; d--) {
    const v = trace[d]!;
    const k = x - y;
    const prevK =
      k === -d || (k !== d && v[offset + k - 1]! < v[offset + k + 1]!)
        ? k + 1
        : k - 1;
    const prevX = d === 0 ? 0 : v[offset + prevK]!;
    const prevY = d === 0 ? 0 : prevX - prevK;
    while (x > prevX && y > prevY) {
      lines.push({ kind: "same", text: a[--x]! });
      y--;
    }
    if (d === 0) break;
    if (x === prevX) lines.push({ kind: "add", text: b[--y]! });
    else lines.push({ kind: "remove", text: a[--x]! });
  }
  while (x > 0 && y > 0) {
    lines.push({ kind: "same", text: a[--x]! });
    y--;
  }
  return lines.reverse();
}
