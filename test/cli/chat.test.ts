import { join } from "node:path";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import {
  startFakeOpenAIServer,
  type FakeOpenAIServer,
} from "../agent/support/fake-openai-server.js";
import { SessionManager } from "../../src/session/index.js";
import { openSqlite } from "../../src/sqlite/index.js";
import { runCli, temporaryFolder } from "./support/cli.js";

const LONG = "word ".repeat(25_000).trim();

describe("arbor chat against a fake LLM (a scripted OpenAI-compatible server)", () => {
  const folder = temporaryFolder();
  let fake: FakeOpenAIServer | undefined;
  afterEach(async () => {
    await fake?.close();
    fake = undefined;
  });
  afterAll(() => folder.remove());

  it("streams answers and drives /regenerate, /edit, /branches, /memory, /search, /switch and /exit", async () => {
    const db = join(folder.path, "chat.db");
    fake = await startFakeOpenAIServer([
      {
        toolCall: {
          id: "call_1",
          name: "set_context",
          arguments: { label: "memory", content: "The user greets a lot." },
        },
      },
      { text: "Hi there, friend." },
      { text: "Hello again, a second answer." },
      { text: "Good evening to you too." },
      { text: "More from the first branch." },
    ]);
    const env = { ARBOR_BASE_URL: fake.baseURL, ARBOR_MODEL: "fake-model" };
    const input = [
      "hello",
      "/regenerate",
      "/edit good evening",
      "/branches",
      "/memory",
      "/search evening",
      "/switch no-such-message",
      "/frobnicate",
      "/exit",
      "this line is never sent",
    ].join("\n");
    const run = await runCli(["chat", "--name", "Greetings", "--db", db], {
      env,
      input,
    });
    expect(run.code).toBe(0);
    expect(fake.requests).toHaveLength(4);
    // The system prompt offers the writable memory block the CLI configures.
    expect(JSON.stringify(fake.requests[0]!.body.messages)).toContain(
      "MEMORY (Facts the agent keeps across turns",
    );
    expect(fake.requests.every((request) => request.body.stream === true)).toBe(
      true,
    );
    const out = run.stdout;
    expect(out).toMatch(/^Session \S+ "Greetings" with fake-model\./);
    expect(out).toContain("assistant> [tool set_context] Hi there, friend.\n");
    expect(out).toContain("assistant> Hello again, a second answer.\n");
    expect(out).toContain("assistant> Good evening to you too.\n");
    // /branches: the regenerated answers under "hello", the edit beside it, on the active path.
    expect(out).toMatch(
      new RegExp(
        [
          "├─○ \\S+ user: hello",
          "│ ├─○ \\S+ assistant: \\[tool set_context\\] Hi there, friend\\.",
          "│ └─○ \\S+ assistant: Hello again, a second answer\\.",
          "└─● \\S+ user: good evening",
          "  ● \\S+ assistant: Good evening to you too\\.  ◀ active",
        ].join("\n"),
      ),
    );
    expect(out).toContain("\nThe user greets a lot.\n");
    expect(out).toMatch(/\S+ \S+ \[user\] good evening/);
    expect(out).toContain("Unknown command /frobnicate.");
    expect(run.stderr).toContain('error: Message "no-such-message" not found');
    // The edit's request carried the edited text, not the original.
    const lastMessages = fake.requests[3]!.body.messages as Array<{
      role: string;
      content: unknown;
    }>;
    expect(JSON.stringify(lastMessages.at(-1))).toContain("good evening");
    expect(JSON.stringify(lastMessages)).not.toContain("hello");

    const sessionId = /^Session (\S+)/.exec(out)![1]!;
    const history = await runCli(["history", sessionId, "--db", db, "--json"]);
    const messages = (
      JSON.parse(history.stdout) as { messages: Array<{ role: string }> }
    ).messages;
    expect(messages.map((message) => message.role)).toEqual([
      "user",
      "assistant",
    ]);

    // A second run switches back to the first answer and continues that branch.
    const tree = await runCli(["tree", sessionId, "--db", db, "--json"]);
    const firstAnswer = (
      JSON.parse(tree.stdout) as { nodes: Array<{ id: string; text: string }> }
    ).nodes.find((node) => node.text.endsWith("Hi there, friend."))!;
    const again = await runCli(["chat", sessionId, "--db", db], {
      env,
      input: `/switch ${firstAnswer.id}\nand more?\n`,
    });
    expect(again.stdout).toContain(
      `Switched to ${firstAnswer.id} (assistant: [tool set_context] Hi there, friend.).`,
    );
    expect(again.stdout).toContain("assistant> More from the first branch.");
    const continued = await runCli([
      "history",
      sessionId,
      "--db",
      db,
      "--json",
    ]);
    const texts = (
      JSON.parse(continued.stdout) as {
        messages: Array<{ parts: Array<{ type: string; text?: string }> }>;
      }
    ).messages.map((message) =>
      message.parts
        .filter((part) => part.type === "text")
        .map((part) => part.text)
        .join(""),
    );
    expect(texts).toEqual([
      "hello",
      "Hi there, friend.",
      "and more?",
      "More from the first branch.",
    ]);
  });

  it("continues an existing session and compacts it with /compact", async () => {
    const db = join(folder.path, "compact.db");
    fake = await startFakeOpenAIServer([
      // Long answers: the compaction keeps a 20 000-token tail verbatim, so short ones never compact.
      { text: `First answer about tea. ${LONG}` },
      { text: `Second answer about coffee. ${LONG}` },
      { text: `Third answer about cocoa. ${LONG}` },
      { text: "SUMMARY: the user asked about tea, coffee and cocoa." },
    ]);
    const env = { ARBOR_BASE_URL: fake.baseURL, ARBOR_MODEL: "fake-model" };
    const first = await runCli(["chat", "--db", db], {
      env,
      input: "tea?\ncoffee?\n",
    });
    expect(first.code).toBe(0);
    const sessionId = /^Session (\S+)/.exec(first.stdout)![1]!;

    const second = await runCli(["chat", sessionId, "--db", db], {
      env,
      input: "cocoa?\n/compact\n",
    });
    expect(second.code).toBe(0);
    expect(second.stdout).toContain(
      "Continuing after assistant: Second answer about coffee. word word",
    );
    expect(second.stdout).toContain(
      "assistant> Third answer about cocoa. word word",
    );
    expect(second.stdout).toMatch(
      /Summarized \S+ … \S+: SUMMARY: the user asked about tea, coffee and cocoa\./,
    );
    const tree = await runCli(["tree", sessionId, "--db", db]);
    expect(tree.stdout).toContain("covers");
  });

  it("names the missing variable when only half a model is configured, and other commands do not care", async () => {
    const db = join(folder.path, "half.db");
    const env = { ARBOR_BASE_URL: "http://127.0.0.1:9/v1" };
    const chat = await runCli(["chat", "--db", db], { env });
    expect(chat.code).toBe(1);
    expect(chat.stderr).toContain("Set ARBOR_MODEL too");
    // The failed chat created nothing, and sessions list only reads an existing Arbor database.
    const database = openSqlite(db);
    await SessionManager.create(database).list();
    database.close();
    const list = await runCli(["sessions", "list", "--db", db], { env });
    expect(list.code).toBe(0);
  });

  it("refuses to start without a model and says which variables to set", async () => {
    const run = await runCli(["chat", "--db", join(folder.path, "none.db")]);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain("set ARBOR_BASE_URL and ARBOR_MODEL");
  });
});
