// A temporal question answered through session_search in an agent turn: a scripted fake model
// (`MockLanguageModelV3` from `ai/test`, not a language model) calls the tool with a question
// naming a month, and the tool result it receives ranks that month's turn first, with its
// session's name, its time and the turns around it. In memory and on SQLite.
import { describe, expect, it } from "vitest";
import { SessionAgent } from "../../src/agent/index.js";
import { SessionManager } from "../../src/session/index.js";
import { openSqlite } from "../../src/sqlite/index.js";
import {
  promptText,
  scriptedModel,
  textStep,
  toolStep,
  type ModelCall,
} from "./support/scripted-model.js";

const DIARY: Array<[string, string | null, string, string, string]> = [
  ["d1", null, "2023-04-10T09:00:00.000Z", "user", "Caroline went hiking"],
  [
    "d2",
    "d1",
    "2023-05-06T16:30:00.000Z",
    "user",
    "Caroline went to the pride parade",
  ],
  [
    "d3",
    "d2",
    "2023-05-06T16:31:00.000Z",
    "assistant",
    "That sounds like a great day",
  ],
  ["d4", "d3", "2023-06-02T08:00:00.000Z", "user", "Caroline painted a lake"],
];

const backends: Array<[string, () => SessionManager]> = [
  ["memory", () => SessionManager.inMemory()],
  ["sqlite", () => SessionManager.create(openSqlite(":memory:"))],
];

describe.each(backends)(
  "session_search for a temporal question (%s)",
  (_name, open) => {
    it("a scripted fake model asks about May 2023 and reads the May turn first, with neighbours", async () => {
      const manager = open();
      const diary = await manager.create("spring diary");
      for (const [id, parentId, createdAt, role, text] of DIARY)
        await manager
          .getSession(diary.id)
          .importMessage(
            { id, role, parts: [{ type: "text", text }] },
            { parentId, createdAt },
          );
      const chat = await manager.create("today");
      const calls: ModelCall[] = [];
      const model = scriptedModel((call, index) => {
        calls.push(call);
        return index === 0
          ? toolStep("call-1", "session_search", {
              query: "What did Caroline do in May 2023?",
            })
          : textStep("She went to the pride parade.");
      });
      const agent = new SessionAgent({ manager, sessionId: chat.id, model });

      const turn = await agent.run("What did Caroline do in May 2023?");

      expect(turn.text).toBe("She went to the pride parade.");
      const seen = promptText(calls[1]!);
      const first = seen.indexOf(
        '#1 · session \\"spring diary\\" · 2023-05-06 16:30 UTC · user · id d2',
      );
      expect(first).toBeGreaterThan(-1);
      expect(
        seen.indexOf("«Caroline» went to the pride parade"),
      ).toBeGreaterThan(first);
      expect(
        seen.indexOf(
          "assistant (2023-05-06 16:31 UTC): That sounds like a great day",
        ),
      ).toBeGreaterThan(first);
      // The other turns are still there, below the May one.
      expect(seen.indexOf("id d4")).toBeGreaterThan(first);
    });
  },
);
