// The import on real files of other projects, which this repository does not hold (see
// CONTRIBUTING.md): set ARBOR_REAL_FIXTURES to a folder holding them under their original names
// and each one found there is imported and checked for the behaviour its hand-written twin in
// fixtures/ shows. Without the variable the block is skipped, and says so.
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  importConversations,
  parseConversations,
} from "../../src/formats/index.js";
import type { SessionMessage } from "../../src/session/index.js";
import { sqliteManager, textOf } from "./support.js";

const dir = process.env.ARBOR_REAL_FIXTURES;

const CODEX_DESKTOP =
  "rollout-2026-05-11T13-28-45-019e1695-0522-7c83-8b39-0dd379793f80.jsonl";
const CODEX_CLI = "codex-cli-rollout-first-turn.jsonl";
const PI_BASH = "pi-v1-bash-execution.jsonl";
const CHATGPT_CITATIONS = "chatgpt-citations.json";

/** Whether the folder holds `name`. */
function has(name: string): boolean {
  return dir !== undefined && existsSync(join(dir, name));
}

function read(name: string): string {
  return readFileSync(join(dir!, name), "utf8");
}

function metadataOf(message: SessionMessage): Record<string, unknown> {
  return (message.metadata ?? {}) as Record<string, unknown>;
}

describe.skipIf(!dir)(
  "real files of other projects (set ARBOR_REAL_FIXTURES to run)",
  () => {
    it.skipIf(!has(CODEX_DESKTOP))(
      `${CODEX_DESKTOP}: three prompts, each followed by its turn's one assistant message`,
      async () => {
        const [parsed] = parseConversations(read(CODEX_DESKTOP), {
          fileName: CODEX_DESKTOP,
        });
        const records = parsed!.snapshot.messages;
        expect(records.map((record) => record.message.role)).toEqual([
          "user",
          "assistant",
          "user",
          "assistant",
          "user",
          "assistant",
        ]);
        // A chain: each reply hangs under its prompt, each prompt under the reply before it.
        records.forEach((record, index) =>
          expect(record.parentId).toBe(
            index === 0 ? null : records[index - 1]!.message.id,
          ),
        );
        for (const record of records.filter(
          (item) => item.message.role === "assistant",
        )) {
          expect(record.message.parts[0]).toEqual({ type: "step-start" });
          expect(
            record.message.parts.filter(
              (part) =>
                part.type.startsWith("tool-") &&
                part.state !== "output-available",
            ),
          ).toEqual([]);
        }
        expect(parsed!.activeLeafId).toBe(records.at(-1)!.message.id);
        expect(parsed!.title).not.toMatch(/Files mentioned/);
        const manager = sqliteManager();
        const [info] = await importConversations(manager, [parsed!]);
        const history = await manager.getSession(info!.id).getHistory();
        expect(history.map((message) => message.id)).toEqual(
          records.map((record) => record.message.id),
        );
      },
    );

    it.skipIf(!has(CODEX_CLI))(
      `${CODEX_CLI}: the prompt once, the context Codex wrote marked`,
      () => {
        const [parsed] = parseConversations(read(CODEX_CLI));
        const messages = parsed!.snapshot.messages.map(
          (record) => record.message,
        );
        const prompts = messages.filter(
          (message) =>
            message.role === "user" &&
            metadataOf(message).injectedContext === undefined,
        );
        expect(prompts).toHaveLength(1);
        expect(messages.map((m) => metadataOf(m).injectedContext)).toEqual(
          expect.arrayContaining(["permissions", "agents-md"]),
        );
        expect(messages.at(-1)!.role).toBe("assistant");
        // Named after the prompt, not the context before it.
        expect(textOf(prompts[0])).toContain(
          parsed!.title.replace(/\.\.\.$/, ""),
        );
      },
    );

    it.skipIf(!has(PI_BASH))(
      `${PI_BASH}: the commands the user ran are kept, the leaf on the last one`,
      () => {
        const [parsed] = parseConversations(read(PI_BASH));
        const records = parsed!.snapshot.messages;
        const commands = records.filter(
          (record) => metadataOf(record.message).bashExecution !== undefined,
        );
        expect(commands.length).toBeGreaterThan(0);
        expect(parsed!.activeLeafId).toBe(records.at(-1)!.message.id);
        expect(parsed!.activeLeafId).toBe(commands.at(-1)!.message.id);
        for (const { message } of commands)
          expect(textOf(message)).toMatch(/^Ran `/);
      },
    );

    it.skipIf(!has(CHATGPT_CITATIONS))(
      `${CHATGPT_CITATIONS}: every 【n†source】 mark resolves from the stored message`,
      async () => {
        // LibreChat's file is a fragment (its first node's parent is not in it): lenient.
        const conversations = parseConversations(read(CHATGPT_CITATIONS), {
          lenient: true,
        });
        const manager = sqliteManager();
        const infos = await importConversations(manager, conversations);
        let checked = 0;
        for (const info of infos) {
          const { messages } = await manager.exportSession(info.id);
          for (const { message } of messages) {
            const citations = metadataOf(message).citations as
              | Array<{ mark?: string; start?: number; end?: number }>
              | undefined;
            for (const citation of citations ?? []) {
              expect(citation.mark).toMatch(/^【[^【】]*】$/);
              expect(textOf(message).slice(citation.start, citation.end)).toBe(
                citation.mark,
              );
              checked++;
            }
          }
        }
        expect(checked).toBeGreaterThan(0);
      },
    );
  },
);
