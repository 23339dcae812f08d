// Export (snapshot, tree JSONL, Markdown), import of files, and the server-sent change events.
import { readFileSync } from "node:fs";
import { expect, it, vi } from "vitest";
import { writeZip } from "../../formats/zip-writer.js";
import { createApp } from "../../../src/server/index.js";
import type { WithStore } from "./api-suite.js";
import { client, text, type Call } from "./client.js";

async function seeded(call: Call): Promise<string> {
  const { id } = (
    await call("POST", "/v1/sessions", { json: { name: "Trip to Lisbon" } })
  ).body;
  const add = (mid: string, words: string, parentId?: string) =>
    call("POST", `/v1/sessions/${id}/messages`, {
      json: {
        message: text(mid, words, mid.startsWith("a") ? "assistant" : "user"),
        ...(parentId ? { parentId } : {}),
      },
    });
  await add("u1", "Plan a trip");
  await add("a1", "Where to?");
  await add("u2", "Lisbon");
  await add("u3", "Porto", "a1");
  return id;
}

export function transferCases(withStore: WithStore): void {
  it("exports a snapshot, tree JSONL and Markdown, and imports them back", () =>
    withStore(async (store) => {
      const manager = store.manager();
      const app = createApp({ manager });
      const call = client(app);
      const id = await seeded(call);

      const snapshot = await call("GET", `/v1/sessions/${id}/export`);
      expect(snapshot.status).toBe(200);
      expect(snapshot.headers.get("content-disposition")).toContain(
        "Trip-to-Lisbon.json",
      );
      expect(snapshot.body).toMatchObject({
        format: "arbor.session",
        sessionId: id,
      });
      expect(snapshot.body.messages).toHaveLength(4);

      const jsonl = await call(
        "GET",
        `/v1/sessions/${id}/export?format=jsonl&leafId=u2`,
      );
      expect(jsonl.headers.get("content-type")).toContain(
        "application/x-ndjson",
      );
      const lines = jsonl.text
        .trim()
        .split("\n")
        .map((line) => JSON.parse(line));
      expect(lines[0]).toMatchObject({
        type: "session",
        format: "arbor.jsonl",
        activeLeafId: "u2",
      });

      const markdown = await call(
        "GET",
        `/v1/sessions/${id}/export?format=markdown&leafId=u2`,
      );
      expect(markdown.headers.get("content-type")).toContain("text/markdown");
      expect(markdown.text).toContain("Lisbon");
      expect(markdown.text).not.toContain("Porto");

      const imported = await call(
        "POST",
        "/v1/import?format=arbor-jsonl&name=Copy",
        {
          raw: jsonl.text,
          headers: { "Content-Type": "application/x-ndjson" },
        },
      );
      expect(imported.status).toBe(201);
      expect(imported.body.sessions).toHaveLength(1);
      const copy = imported.body.sessions[0];
      expect(copy).toMatchObject({ name: "Copy", messageCount: 4 });
      expect(copy.id).not.toBe(id);
      const tree = await call("GET", `/v1/sessions/${copy.id}/tree`);
      expect(tree.body.nodes.map((n: any) => [n.id, n.parentId])).toEqual([
        ["u1", null],
        ["a1", "u1"],
        ["u2", "a1"],
        ["u3", "a1"],
      ]);

      // The snapshot is the same session again: known from the first import, so skipped...
      const auto = await call("POST", "/v1/import", { raw: snapshot.text });
      expect(auto.status).toBe(200);
      expect(auto.body.skippedConversations).toEqual([
        { title: "Trip to Lisbon", reason: "exists", sessionId: copy.id },
      ]);
      // ...whether asked to bring it up to date (the default) or to skip it: it has every
      // message already.
      for (const existing of ["update", "skip"]) {
        const again = await call("POST", `/v1/import?existing=${existing}`, {
          raw: snapshot.text,
        });
        expect([again.status, again.body.updated]).toEqual([200, []]);
        expect(again.body.skippedConversations).toEqual(
          auto.body.skippedConversations,
        );
      }
      const tree2 = await call("GET", `/v1/sessions/${copy.id}/tree`);
      expect(tree2.body.nodes).toHaveLength(4);
    }));

  it("imports an OpenAI message array and refuses a broken file whole", () =>
    withStore(async (store) => {
      const call = client(createApp({ manager: store.manager() }));
      const before = (await call("GET", "/v1/sessions")).body.sessions.length;
      const openai = JSON.stringify([
        { role: "user", content: "Hello" },
        { role: "assistant", content: "Hi there" },
      ]);
      const ok = await call(
        "POST",
        "/v1/import?format=openai&fileName=chat.json",
        { raw: openai },
      );
      expect(ok.status).toBe(201);
      expect(ok.body.sessions[0].messageCount).toBe(2);
      const broken = await call("POST", "/v1/import", { raw: "{ not json" });
      expect(broken.status).toBe(400);
      expect(broken.body.error.code).toBe("INVALID_IMPORT");
      const empty = await call("POST", "/v1/import", { raw: "" });
      expect(empty.status).toBe(400);
      expect((await call("GET", "/v1/sessions")).body.sessions).toHaveLength(
        before + 1,
      );
    }));

  it("imports a trimmed file with lenient=true, orphans under the root and a warning each; refuses it whole without", () =>
    withStore(async (store) => {
      const call = client(createApp({ manager: store.manager() }));
      const trimmed = readFileSync(
        new URL(
          "../../formats/fixtures/bad-missing-parent.pi.jsonl",
          import.meta.url,
        ),
        "utf8",
      );
      const before = (await call("GET", "/v1/sessions")).body.sessions.length;
      const strict = await call("POST", "/v1/import?fileName=trimmed.jsonl", {
        raw: trimmed,
      });
      expect(strict.status).toBe(400);
      expect(strict.body.error.code).toBe("INVALID_IMPORT");
      expect(strict.body.error.message).toContain(
        'the parent "deadbeef" of "t1000001" is not in the file',
      );
      expect((await call("GET", "/v1/sessions")).body.sessions).toHaveLength(
        before,
      );
      const lenient = await call(
        "POST",
        "/v1/import?fileName=trimmed.jsonl&lenient=true",
        { raw: trimmed },
      );
      expect(lenient.status).toBe(201);
      expect(lenient.body.warnings).toEqual([
        expect.objectContaining({
          where: "line 7",
          problem:
            'the parent "deadbeef" of "t1000001" is not in the file; attached to the root',
        }),
      ]);
      const [imported] = lenient.body.sessions;
      expect(imported.messageCount).toBeGreaterThan(0);
      const snapshot = (await call("GET", `/v1/sessions/${imported.id}/export`))
        .body;
      const roots = snapshot.messages
        .filter(
          (record: { parentId: string | null }) => record.parentId === null,
        )
        .map((record: { message: { id: string } }) => record.message.id);
      expect(roots).toEqual(["u1000001", "a2000001"]);
    }));

  it("reports what a ChatGPT export held that the import left out", () =>
    withStore(async (store) => {
      const call = client(createApp({ manager: store.manager() }));
      const file = readFileSync(
        new URL(
          "../../formats/fixtures/chatgpt-browsing.json",
          import.meta.url,
        ),
        "utf8",
      );
      const imported = await call(
        "POST",
        "/v1/import?fileName=conversations.json",
        {
          raw: file,
        },
      );
      expect(imported.status).toBe(201);
      expect(imported.body.sessions).toHaveLength(1);
      expect(
        imported.body.skipped.map((item: any) => [
          item.conversation,
          item.what,
        ]),
      ).toEqual([
        [0, "user_editable_context"],
        [0, "reasoning_recap"],
        [0, "image"],
        [0, "audio_asset_pointer"],
        [0, "canvas_widget"],
      ]);
    }));

  it("skips a conversation imported before, updates on request, and replays an Idempotency-Key", () =>
    withStore(async (store) => {
      const call = client(createApp({ manager: store.manager() }));
      const chat = [
        { role: "user", content: "Hello" },
        { role: "assistant", content: "Hi there" },
      ];
      const raw = JSON.stringify(chat);
      const first = await call("POST", "/v1/import?format=openai", { raw });
      expect(first.status).toBe(201);
      const id = first.body.created[0];
      const again = await call("POST", "/v1/import?format=openai", { raw });
      expect(again.status).toBe(200);
      expect(again.body.sessions).toEqual([]);
      expect(again.body.skippedConversations).toEqual([
        { title: "Hello", reason: "exists", sessionId: id },
      ]);
      const replaced = await call(
        "POST",
        "/v1/import?format=openai&existing=replace",
        { raw },
      );
      expect(replaced.status).toBe(200);
      expect(replaced.body.updated).toEqual([
        { sessionId: expect.any(String), messagesAdded: 2 },
      ]);
      expect((await call("GET", `/v1/sessions/${id}`)).status).toBe(404);

      const headers = { "Idempotency-Key": "upload-7" };
      const other = JSON.stringify([{ role: "user", content: "Another chat" }]);
      const once = await call("POST", "/v1/import?format=openai", {
        raw: other,
        headers,
      });
      expect(once.status).toBe(201);
      const twice = await call("POST", "/v1/import?format=openai", {
        raw: other,
        headers,
      });
      expect(twice.status).toBe(201);
      expect(twice.headers.get("idempotent-replayed")).toBe("true");
      expect(twice.body).toEqual(once.body);
      const reused = await call("POST", "/v1/import?format=openai", {
        raw,
        headers,
      });
      expect(reused.status).toBe(422);
      expect(reused.body.error.code).toBe("IDEMPOTENCY_KEY_REUSED");
      expect((await call("GET", "/v1/sessions")).body.sessions).toHaveLength(2);
    }));

  it("imports a ChatGPT export zip as downloaded", () =>
    withStore(async (store) => {
      const call = client(createApp({ manager: store.manager() }));
      const zip = writeZip([
        {
          name: "conversations.json",
          data: readFileSync(
            new URL(
              "../../formats/fixtures/chatgpt-conversations.json",
              import.meta.url,
            ),
          ),
        },
        { name: "file-1.png", data: Buffer.alloc(100), store: true },
      ]);
      const imported = await call("POST", "/v1/import?fileName=export.zip", {
        raw: new Uint8Array(zip),
        headers: { "Content-Type": "application/zip" },
      });
      expect(imported.status).toBe(201);
      expect(imported.body.sessions.map((view: any) => view.name)).toEqual([
        "Lisbon weekend plan",
        "Regex for dates",
      ]);
    }));

  it("exports Markdown with tool outputs folded, or whole with toolOutput=full", () =>
    withStore(async (store) => {
      const call = client(createApp({ manager: store.manager() }));
      const page = "A long page. ".repeat(200);
      const imported = await call("POST", "/v1/import?format=openai", {
        raw: JSON.stringify([
          { role: "user", content: "Browse" },
          {
            role: "assistant",
            content: null,
            tool_calls: [
              {
                id: "c1",
                type: "function",
                function: { name: "browse", arguments: "{}" },
              },
            ],
          },
          { role: "tool", tool_call_id: "c1", content: page },
        ]),
      });
      const id = imported.body.sessions[0].id;
      const folded = await call(
        "GET",
        `/v1/sessions/${id}/export?format=markdown`,
      );
      expect(folded.text.length).toBeLessThan(600);
      expect(folded.text).toContain("(2,600 characters)");
      const full = await call(
        "GET",
        `/v1/sessions/${id}/export?format=markdown&toolOutput=full`,
      );
      expect(full.text).toContain(page);
    }));

  it("streams change events until the client disconnects", () =>
    withStore(async (store) => {
      const manager = store.manager();
      const app = createApp({ manager });
      const call = client(app);
      const id = await seeded(call);
      const session = manager.getSession(id);
      const stops: number[] = [];
      const watch = session.watch.bind(session);
      vi.spyOn(session, "watch").mockImplementation((listener) => {
        const stop = watch(listener);
        return () => {
          stops.push(1);
          stop();
        };
      });

      const response = await app.request(`/v1/sessions/${id}/events`);
      expect(response.status).toBe(200);
      expect(response.headers.get("content-type")).toContain(
        "text/event-stream",
      );
      const reader = response.body!.getReader();
      const events = eventReader(reader);
      expect(await events.next()).toMatchObject({
        event: "ready",
        data: { sessionId: id },
      });
      await call("POST", `/v1/sessions/${id}/messages`, {
        json: { message: text("u9", "new") },
      });
      const change = await events.next();
      expect(change).toMatchObject({
        event: "change",
        data: { type: "append", sessionId: id, ids: ["u9"] },
      });
      await reader.cancel();
      await vi.waitFor(() => expect(stops).toHaveLength(1), { timeout: 5000 });
    }));
}

/** Parses `event:` / `data:` blocks from an SSE body, skipping comments. */
function eventReader(reader: ReadableStreamDefaultReader<Uint8Array>) {
  const decoder = new TextDecoder();
  let buffer = "";
  return {
    async next(): Promise<{ event: string; data: any }> {
      for (;;) {
        const end = buffer.indexOf("\n\n");
        if (end !== -1) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const lines = block
            .split("\n")
            .filter((line) => !line.startsWith(":"));
          if (lines.length === 0) continue;
          const event =
            lines.find((l) => l.startsWith("event: "))?.slice(7) ?? "message";
          const data = lines
            .filter((l) => l.startsWith("data: "))
            .map((l) => l.slice(6))
            .join("\n");
          return { event, data: JSON.parse(data) };
        }
        const { done, value } = await reader.read();
        if (done) throw new Error("stream ended");
        buffer += decoder.decode(value, { stream: true });
      }
    },
  };
}
