// examples/agent.mjs as users run it: a subprocess importing the built package (`npm run build`
// first), against the fake OpenAI-compatible server on loopback. Regressions: a missing or half
// configuration exited 0 or printed a stack trace; `/branches` gave no way back to the question
// an `/edit` replaced; `/history` hid tool calls; `/edit` with no text reached the model.
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import {
  startFakeOpenAIServer,
  type FakeOpenAIServer,
} from "./support/fake-openai-server.js";

const EXAMPLE = fileURLToPath(
  new URL("../../examples/agent.mjs", import.meta.url),
);
const BUILT = existsSync(
  fileURLToPath(new URL("../../dist/agent/index.js", import.meta.url)),
);
// Under CI a missing build is a failure, not a skip.
const needsBuild = !BUILT && process.env.CI !== "true";
const SCRIPT_COMMAND = "/usr/bin/script";

let server: FakeOpenAIServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs a command with only the given ARBOR_* variables set, feeding `input` to stdin. */
function run(
  command: string,
  args: string[],
  env: Record<string, string>,
  input = "",
): Promise<Run> {
  const base = Object.fromEntries(
    Object.entries(process.env).filter(([name]) => !name.startsWith("ARBOR_")),
  );
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      env: { ...base, ARBOR_DB: ":memory:", ...env },
      stdio: ["pipe", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk) => (stdout += chunk));
    child.stderr.on("data", (chunk) => (stderr += chunk));
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(input);
  });
}

const example = (
  env: Record<string, string>,
  input = "",
  args: string[] = [],
) => run(process.execPath, [EXAMPLE, ...args], env, input);

function modelEnv(baseURL: string) {
  return { ARBOR_BASE_URL: baseURL, ARBOR_MODEL: "fake-chat-model" };
}

describe.skipIf(needsBuild)(
  `examples/agent.mjs${needsBuild ? " (skipped: run `npm run build` first, it imports dist/)" : ""}`,
  () => {
    it("without an endpoint: exit status 2 and one line on stderr, no stack trace", async () => {
      const result = await example({});
      expect(result.code).toBe(2);
      expect(result.stdout).toBe("");
      const lines = result.stderr.trim().split("\n");
      expect(lines).toHaveLength(1);
      expect(lines[0]).toContain("ARBOR_BASE_URL");
      expect(lines[0]).toContain("ARBOR_MODEL");
    });

    it("with only ARBOR_BASE_URL: one line naming ARBOR_MODEL, exit status 2, no stack trace", async () => {
      const result = await example({
        ARBOR_BASE_URL: "http://127.0.0.1:9/v1",
      });
      expect(result.code).toBe(2);
      expect(result.stderr.trim().split("\n")).toEqual([
        "[arbor] [agent] Set ARBOR_MODEL too: a model needs ARBOR_BASE_URL and ARBOR_MODEL",
      ]);
      expect(result.stderr).not.toMatch(/^\s+at /m);
    });

    it("a failed turn exits with status 1", async () => {
      // The fake server has no scripted reply, so it answers 500.
      server = await startFakeOpenAIServer([]);
      const result = await example(modelEnv(server.baseURL), "", ["Hello"]);
      expect(result.code).toBe(1);
      expect(result.stderr).toContain("[error]");
      expect(result.stderr).not.toMatch(/^\s+at /m);
    });

    it("a scripted chat: /edit, /branches marks the active version, /switch goes back to the original question, /history shows the tool call", async () => {
      server = await startFakeOpenAIServer([
        {
          toolCall: {
            id: "call_1",
            name: "set_context",
            arguments: { label: "memory", content: "Asks about capitals." },
          },
        },
        { text: "Paris." },
        { text: "Rome." },
      ]);
      const result = await example(
        modelEnv(server.baseURL),
        [
          "What is the capital of France?",
          "/edit",
          "/edit What is the capital of Italy?",
          "/branches",
          "/switch 1",
          "/history",
          "/branches",
          "/quit",
        ].join("\n") + "\n",
      );
      expect(result.stderr).toBe("");
      expect(result.code).toBe(0);
      // Three model calls: the tool step, its answer, the edited question. The empty /edit none.
      expect(server.requests).toHaveLength(3);
      const out = result.stdout;
      expect(out).toContain("Usage: /edit <the new text of your last message>");

      const [afterEdit, afterSwitch] = out
        .split("Your last message:")
        .slice(1)
        .map((section) => section.split("* = active")[0]!);
      // After the edit: two versions, the edit active; its answer active.
      expect(afterEdit).toMatch(/ {2}1\. What is the capital of France\?/);
      expect(afterEdit).toMatch(/\* 2\. What is the capital of Italy\?/);
      expect(afterEdit).toMatch(/\* 3\. Rome\./);
      expect(out).toMatch(/Switched to: \[set_context .*\] Paris\./);
      // After /switch 1: the original question is active again, with its answer.
      expect(afterSwitch).toMatch(/\* 1\. What is the capital of France\?/);
      expect(afterSwitch).toMatch(/ {2}2\. What is the capital of Italy\?/);
      expect(afterSwitch).toMatch(/\* 3\. \[set_context\] Paris\./);
      // /history after the switch: the original branch, tool call included.
      expect(out).toContain("user: What is the capital of France?");
      expect(out).toMatch(
        /assistant: \[set_context \{"label":"memory","content":"Asks about capitals\."\} → .+\] Paris\./,
      );
    });

    it.skipIf(!existsSync(SCRIPT_COMMAND))(
      `on a terminal, "…thinking" shows while waiting and is cleared${existsSync(SCRIPT_COMMAND) ? "" : " (skipped: needs util-linux `script` for a pseudo-terminal)"}`,
      async () => {
        server = await startFakeOpenAIServer([{ text: "Hello there." }]);
        const command = `${JSON.stringify(process.execPath)} ${JSON.stringify(EXAMPLE)} Hi`;
        const result = await run(
          SCRIPT_COMMAND,
          ["-qec", command, "/dev/null"],
          modelEnv(server.baseURL),
        );
        expect(result.code).toBe(0);
        expect(result.stdout).toContain("…thinking");
        expect(result.stdout).toMatch(/…thinking[^\n]*\r\x1b\[KHello there\./);
      },
    );
  },
);
