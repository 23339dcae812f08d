// How a resumed watch on PostgreSQL takes the live events that follow its catch-up: the cursor
// of each must cover what the catch-up delivered, or a watch resumed from it gets rows twice.
import { describe, expect, it } from "vitest";
import type { ChangeEvent } from "../../session/contracts/changes.js";
import {
  followCatchUp,
  parsePostgresPosition,
  parseSnapshot,
} from "./postgres-change-position.js";

const event = (cursor: string): ChangeEvent => ({
  type: "append",
  sessionId: "s",
  ids: ["m"],
  seq: 99,
  at: "2026-12-05T00:00:00.000Z",
  cursor,
});

describe("followCatchUp", () => {
  // A read went from A to B; the catch-up's snapshot C lies between them: it saw 972's row
  // (seq 100) but not 973's (seq 99).
  const A = "900:971:900,968,969";
  const B = "900:978:900,972,975,976";
  const C = parseSnapshot("900:978:900,972,973,975,976");

  it("drops an event the catch-up saw", () => {
    expect(followCatchUp(C, event(`${A}/${B}/100`), 974n)).toBeNull();
  });

  it("restates the cursor of an event inside a read that began before the catch-up", () => {
    const followed = followCatchUp(C, event(`${A}/${B}/99`), 973n);
    expect(followed?.cursor).toBe(`${C.text}/${B}/99`);
    // Resuming from it skips everything C saw, seq 100 included.
    const position = parsePostgresPosition(followed!.cursor, false);
    expect(position.base?.text).toBe(C.text);
    expect(position.partial?.upTo).toBe(99n);
  });

  it("leaves a cursor alone when its read began after the catch-up, or ends the read", () => {
    const after = "900:990:900";
    const inside = event(`${after}/900:995:900/120`);
    expect(followCatchUp(C, inside, 991n)).toBe(inside);
    const last = event(B);
    expect(followCatchUp(C, last, 973n)).toBe(last);
  });

  it("orders snapshots with the same xmax by their running transactions", () => {
    // The same xmax: the read's base still saw 973 running and so did C; C is not later.
    const base = "900:978:900,972,973,975,976";
    const inside = event(`${base}/900:980:900/99`);
    expect(followCatchUp(C, inside, 979n)).toBe(inside);
    const earlier = "900:978:900,972,973,974,975,976";
    expect(
      followCatchUp(C, event(`${earlier}/900:980:900/99`), 979n)?.cursor,
    ).toBe(`${C.text}/900:980:900/99`);
  });
});
