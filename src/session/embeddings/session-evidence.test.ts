import { describe, expect, it } from "vitest";
import type { MessageRef } from "../contracts/registry.js";
import {
  KEPT_PLACES,
  rankWithSessionEvidence,
  SESSION_EVIDENCE_DEPTH,
} from "./session-evidence.js";

interface Candidate {
  id: string;
  sessionId?: string;
  kind?: string;
  role?: string;
}

/** Filler candidates, each alone in its session (no share). */
const fillers = (count: number, prefix = "f"): Candidate[] =>
  Array.from({ length: count }, (_, i) => ({
    id: `${prefix}${i}`,
    sessionId: `${prefix}${i}`,
  }));
const ids = (items: Candidate[]) => items.map((item) => item.id);

/** Reranks with the messages named `*-open` as their sessions' openings; records each read. */
async function rerank(
  items: Candidate[],
  reads: MessageRef[][] = [],
  query = "maui hiking trails",
) {
  return ids(
    await rankWithSessionEvidence(
      items,
      (item) => item,
      (messages) => {
        reads.push(messages);
        return messages.filter((m) => m.id.endsWith("-open"));
      },
      query,
    ),
  );
}

describe("rankWithSessionEvidence", () => {
  it("lifts a session's opening by its session's matches, never into the first places", async () => {
    const items = [
      { id: "s-late", sessionId: "s" },
      ...fillers(KEPT_PLACES + 2),
      { id: "s-open", sessionId: "s" },
    ];
    // 1/66 plus its share of one match at the top (0.2/60) passes the 1/60 of the first
    // place; it stops below the places kept.
    expect(await rerank(items)).toEqual([
      "s-late",
      "f0",
      "f1",
      "s-open",
      "f2",
      "f3",
      "f4",
    ]);
  });

  it("keeps the first places: a session's match there stays, its opening comes after", async () => {
    const items = [
      ...fillers(KEPT_PLACES - 1),
      { id: "s-a", sessionId: "s" },
      { id: "s-b", sessionId: "s" },
      { id: "s-open", sessionId: "s" },
    ];
    expect(await rerank(items)).toEqual(["f0", "f1", "s-a", "s-open", "s-b"]);
  });

  it("lifts only an opening: a later turn, a summary or a session's only candidate keeps its place", async () => {
    const later = [
      { id: "s-late", sessionId: "s" },
      ...fillers(KEPT_PLACES + 2),
      { id: "s-second", sessionId: "s" },
    ];
    expect(await rerank(later)).toEqual(ids(later));
    const summary = [
      { id: "s-late", sessionId: "s" },
      ...fillers(KEPT_PLACES + 2),
      { id: "s-open", sessionId: "s", kind: "summary" },
    ];
    expect(await rerank(summary)).toEqual(ids(summary));
    const alone = [
      ...fillers(KEPT_PLACES + 2),
      { id: "s-open", sessionId: "s" },
    ];
    expect(await rerank(alone)).toEqual(ids(alone));
  });

  it("reads once, only the candidates below the first places whose session has another", async () => {
    const reads: MessageRef[][] = [];
    await rerank(
      [
        { id: "s-a", sessionId: "s" },
        ...fillers(KEPT_PLACES),
        { id: "s-open", sessionId: "s" },
        { id: "t-b", sessionId: "t" },
        { id: "t-open", sessionId: "t" },
      ],
      reads,
    );
    expect(reads).toEqual([
      [
        { sessionId: "s", id: "s-open" },
        { sessionId: "t", id: "t-b" },
        { sessionId: "t", id: "t-open" },
      ],
    ]);
    const none: MessageRef[][] = [];
    await rerank(fillers(KEPT_PLACES + 5), none);
    expect(none).toEqual([]);
  });

  it("reorders only the first SESSION_EVIDENCE_DEPTH candidates", async () => {
    const items = [
      { id: "s-late", sessionId: "s" },
      ...fillers(SESSION_EVIDENCE_DEPTH - 1),
      { id: "s-open", sessionId: "s" },
    ];
    expect(await rerank(items)).toEqual(ids(items));
  });

  it("weighs a user turn's share 1.5 times unless the query addresses the assistant", async () => {
    // A user turn at rank 5 (1.5 / 65) passes the assistant's turns at ranks 3 and 4 (1 / 63,
    // 1 / 64).
    const items: Candidate[] = [
      ...fillers(KEPT_PLACES),
      { id: "a3", sessionId: "a3", role: "assistant" },
      { id: "a4", sessionId: "a4", role: "assistant" },
      { id: "u5", sessionId: "u5", role: "user" },
    ];
    expect(await rerank(items, [], "how many bikes do I own")).toEqual([
      "f0",
      "f1",
      "f2",
      "u5",
      "a3",
      "a4",
    ]);
    // Addressed to the assistant, or asking to be reminded: its turns may be the answer, the
    // order stays.
    for (const query of [
      "what bikes did you recommend to me",
      "Remind me of the bike shop",
    ])
      expect(await rerank(items, [], query)).toEqual(ids(items));
    // A user turn at rank 90 (1.5 / 150) passes the candidates below rank 40 (1 / 100, a tie
    // kept in the ranking's order) and no higher one.
    const far: Candidate[] = [
      ...fillers(KEPT_PLACES),
      ...fillers(87, "g"),
      { id: "u90", sessionId: "u90", role: "user" },
    ];
    const ranked = await rerank(far, [], "how many bikes do I own");
    expect(ranked.indexOf("u90")).toBe(41);
    expect(ranked[40]).toBe("g37");
  });

  it("never weighs a summary as a user turn", async () => {
    const items: Candidate[] = [
      ...fillers(KEPT_PLACES),
      { id: "a3", sessionId: "a3", role: "assistant" },
      { id: "s4", sessionId: "s4", role: "user", kind: "summary" },
    ];
    expect(await rerank(items)).toEqual(ids(items));
  });
});
