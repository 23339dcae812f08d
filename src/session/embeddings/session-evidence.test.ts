import { describe, expect, it } from "vitest";
import {
  KEPT_PLACES,
  rankWithSessionEvidence,
  SESSION_EVIDENCE_DEPTH,
} from "./session-evidence.js";

interface Candidate {
  id: string;
  sessionId?: string;
  kind?: string;
  createdAt?: string;
}

const at = (minute: number) =>
  new Date(Date.UTC(2026, 0, 1, 9, minute)).toISOString();
/** Filler candidates, each alone in its session (no share), written at `minute`. */
const fillers = (count: number, prefix = "f"): Candidate[] =>
  Array.from({ length: count }, (_, i) => ({
    id: `${prefix}${i}`,
    sessionId: `${prefix}${i}`,
    createdAt: at(30),
  }));
const ids = (items: Candidate[]) => items.map((item) => item.id);
const rerank = (items: Candidate[]) =>
  ids(rankWithSessionEvidence(items, (item) => item));

describe("rankWithSessionEvidence", () => {
  it("lifts a session's earliest candidate by its session's matches, never into the first places", () => {
    const items = [
      { id: "s-late", sessionId: "s", createdAt: at(5) },
      ...fillers(KEPT_PLACES + 2),
      { id: "s-first", sessionId: "s", createdAt: at(1) },
    ];
    // 1/66 plus its share of one match at the top (0.15/60) passes the 1/60 of the first
    // place; it stops below the places kept.
    expect(rerank(items)).toEqual([
      "s-late",
      "f0",
      "f1",
      "s-first",
      "f2",
      "f3",
      "f4",
    ]);
  });

  it("keeps the first places: a session's match there stays, its earliest candidate comes after", () => {
    const items = [
      ...fillers(KEPT_PLACES - 1),
      { id: "s-a", sessionId: "s", createdAt: at(5) },
      { id: "s-b", sessionId: "s", createdAt: at(6) },
      { id: "s-first", sessionId: "s", createdAt: at(1) },
    ];
    expect(rerank(items)).toEqual(["f0", "f1", "s-a", "s-first", "s-b"]);
  });

  it("gives no share when the earliest time ties, is missing, or the earliest is a summary", () => {
    const tied = [
      { id: "s-late", sessionId: "s", createdAt: at(5) },
      ...fillers(KEPT_PLACES + 2),
      { id: "s-a", sessionId: "s", createdAt: at(1) },
      { id: "s-b", sessionId: "s", createdAt: at(1) },
    ];
    expect(rerank(tied)).toEqual(ids(tied));
    const summary = [
      { id: "s-late", sessionId: "s", createdAt: at(5) },
      ...fillers(KEPT_PLACES + 2),
      { id: "s-sum", sessionId: "s", kind: "summary", createdAt: at(1) },
    ];
    expect(rerank(summary)).toEqual(ids(summary));
    // A candidate without a time (found by meaning alone) is passed over; the timed one leads.
    const untimed = [
      { id: "s-late", sessionId: "s", createdAt: at(5) },
      ...fillers(KEPT_PLACES + 2),
      { id: "s-untimed", sessionId: "s" },
      { id: "s-first", sessionId: "s", createdAt: at(1) },
    ];
    expect(rerank(untimed).indexOf("s-first")).toBe(KEPT_PLACES);
  });

  it("reorders only the first SESSION_EVIDENCE_DEPTH candidates", () => {
    const items = [
      { id: "s-late", sessionId: "s", createdAt: at(5) },
      ...fillers(SESSION_EVIDENCE_DEPTH - 1),
      { id: "s-first", sessionId: "s", createdAt: at(1) },
    ];
    expect(rerank(items)).toEqual(ids(items));
  });
});
