// The memory every MCP test serves: a launch-planning conversation with a regenerated decision
// (two branches) and a later reminder, a 60-message chat for windows and token budgets, a short
// trip chat that the erase cases forget, and 26 one-message sessions for pagination. Fixed ids,
// so the same cases run in-process, in workerd and against spawned CLIs.
import type { SessionSnapshot } from "../../../src/session/index.js";

type Row = [
  id: string,
  parentId: string | null,
  role: string,
  at: string,
  text: string,
];

function snapshot(
  sessionId: string,
  name: string,
  rows: Row[],
  contextBlocks: Record<string, string> = {},
): SessionSnapshot {
  const messages = rows.map(([id, parentId, role, at, text]) => ({
    message: { id, role, parts: [{ type: "text", text }] },
    parentId,
    createdAt: at,
  }));
  const last = rows.at(-1)!;
  return {
    format: "arbor.session",
    version: 1,
    sessionId,
    exportedAt: "2026-11-30T12:00:00.000Z",
    messages,
    compactions: [],
    activeLeafId: last[0],
    contextBlocks,
    info: {
      id: sessionId,
      name,
      parent_session_id: null,
      model: null,
      source: "test",
      input_tokens: 0,
      output_tokens: 0,
      estimated_cost: 0,
      end_reason: null,
      created_at: rows[0]![3],
      updated_at: last[3],
    },
  };
}

export const LAUNCH = snapshot(
  "launch",
  "Launch planning",
  [
    [
      "u1",
      null,
      "user",
      "2026-10-01T09:00:00.000Z",
      "What budget should we plan for the product launch?",
    ],
    [
      "a1",
      "u1",
      "assistant",
      "2026-10-01T09:01:00.000Z",
      "A first estimate: the launch budget is $50k, mostly ads.",
    ],
    ["u2", "a1", "user", "2026-10-01T09:05:00.000Z", "Too much. Cap it."],
    [
      "a2",
      "u2",
      "assistant",
      "2026-10-01T09:06:00.000Z",
      "Decision: the launch budget is capped at $40k; Ada owns the spend.",
    ],
    [
      "a2b",
      "u2",
      "assistant",
      "2026-10-01T09:07:00.000Z",
      "Decision: cap the launch budget at $35k and move the rest to the beta.",
    ],
    [
      "u3",
      "a2b",
      "user",
      "2026-11-15T10:00:00.000Z",
      "Reminder: the launch budget review is on Friday.",
    ],
  ],
  { memory: "The user prefers short answers." },
);

const FILLER =
  "We compared indexing strategies, read benchmark tables, argued about write amplification, weighed recall against latency and wrote down what to measure next week on the bigger corpus";

export const LONG_CHAT: SessionSnapshot = snapshot(
  "long-chat",
  "Long research chat",
  Array.from({ length: 60 }, (_, index): Row => [
    `m${index + 1}`,
    index === 0 ? null : `m${index}`,
    index % 2 === 0 ? "user" : "assistant",
    new Date(Date.UTC(2026, 8, 1, 8, index)).toISOString(),
    `Message ${index + 1}. ${FILLER}. ${FILLER}. ${FILLER}.`,
  ]),
);

// A summary overlay over the first ten messages: the history reads it in their place.
LONG_CHAT.compactions.push({
  id: "overlay-1",
  summary: "Summary: the team settled on a hybrid index for the corpus.",
  fromMessageId: "m1",
  toMessageId: "m10",
  createdAt: "2026-09-01T09:00:00.000Z",
});

export const TRIP = snapshot("trip", "Trip to Lisbon", [
  [
    "t1",
    null,
    "user",
    "2026-08-01T10:00:00.000Z",
    "Plan a weekend in Lisbon by train.",
  ],
  [
    "t2",
    "t1",
    "assistant",
    "2026-08-01T10:01:00.000Z",
    "Take the night train; stay in Alfama.",
  ],
]);

export const STANDUPS = Array.from({ length: 26 }, (_, index) =>
  snapshot(`standup-${index + 1}`, `Standup ${index + 1}`, [
    [
      `s${index + 1}`,
      null,
      "user",
      new Date(Date.UTC(2026, 6, 1 + index, 9)).toISOString(),
      `Standup notes, day ${index + 1}.`,
    ],
  ]),
);

/** Every seeded session: 29. */
export const ALL_SNAPSHOTS = [LAUNCH, LONG_CHAT, TRIP, ...STANDUPS];

/** The part of a SessionManager seeding needs (so workerd code can pass its own). */
interface Importer {
  importSession(
    snapshot: SessionSnapshot,
    options?: { ownerId?: string },
  ): Promise<unknown>;
}

/** Imports every fixture session, owned by `ownerId` when given. */
export async function seedMemory(
  manager: Importer,
  ownerId?: string,
): Promise<void> {
  for (const item of ALL_SNAPSHOTS)
    await manager.importSession(item, ownerId ? { ownerId } : {});
}

/** Configures a manager the way the CLI does, so seeded block contents are kept. */
export function withMemoryBlock<
  T extends {
    withContext(label: string, options: object): T;
    withCachedPrompt(): T;
  },
>(manager: T): T {
  return manager
    .withContext("memory", { description: "Facts", maxTokens: 2000 })
    .withCachedPrompt();
}
