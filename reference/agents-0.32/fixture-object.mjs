// A Durable Object that writes a realistic conversation through agents@0.32.0's public
// `agents/sessions` API, as a black box, and reports what the package itself reads back.
// reference/generate-032-fixtures.mjs bundles it with rolldown and runs it in workerd through
// Miniflare; the SQLite file workerd persists is the agents-032 fixture.
import { DurableObject } from "cloudflare:workers";
import { Lifecycle } from "agents/lifecycle";
import { Sessions } from "agents/sessions";

/** Above the package's documented 1.5 MiB row budget, so the message needs continuation rows. */
const LARGE_MESSAGE_BYTES = 3_400_000;

/** Fixed times, so the fixture does not depend on the clock where it matters. */
const at = (minute) => new Date(Date.UTC(2026, 0, 5, 9, minute, 0));

const text = (id, role, body, extra = {}) => ({
  id,
  role,
  parts: [{ type: "text", text: body }],
  ...extra,
});

/** A tiny PNG-like payload, base64 in a data URL: an inline media part (an attachment). */
function imagePart(seed, filename) {
  const bytes = new Uint8Array(6000);
  for (let index = 0; index < bytes.length; index++)
    bytes[index] = (index * 31 + seed) % 251;
  let binary = "";
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return {
    type: "file",
    mediaType: "image/png",
    filename,
    url: `data:image/png;base64,${btoa(binary)}`,
  };
}

/** Multi-byte text (CJK, emoji) so the continuation slices fall inside UTF-8 sequences. */
function largeLog() {
  const lines = [];
  let size = 0;
  for (let line = 0; size < LARGE_MESSAGE_BYTES; line++) {
    const entry = `${String(line).padStart(6, "0")} deploy step ok 部署成功 🚀 zeppelin-build ✓\n`;
    lines.push(entry);
    size += new TextEncoder().encode(entry).length;
  }
  return lines.join("");
}

export class FixtureObject extends DurableObject {
  sessions = new Sessions();
  lifecycle = Lifecycle.install(this).use(this.sessions);

  async onRequest() {
    try {
      return Response.json(await this.#writeAll());
    } catch (error) {
      return Response.json(
        { error: String((error && error.stack) || error) },
        { status: 500 },
      );
    }
  }

  async #writeAll() {
    const written = new Map();
    const main = this.sessions.session();
    const support = this.sessions.session("support");
    const track = (session, id) => {
      const list = written.get(session.sessionId) ?? [];
      list.push(id);
      written.set(session.sessionId, list);
    };
    const append = async (session, message, options) => {
      const result = await session.appendMessage(message, options);
      if (result.inserted) track(session, message.id);
      return result;
    };

    // ---- The default session "": a conversation with branches, media, a large message ----
    await append(
      main,
      text(
        "u1",
        "user",
        "Can you deploy the billing service to production on Friday?",
        { createdAt: at(0), metadata: { source: "web", locale: "en-US" } },
      ),
    );
    await append(main, {
      id: "a1",
      role: "assistant",
      createdAt: at(1),
      parts: [
        { type: "step-start" },
        {
          type: "tool-deploy",
          toolCallId: "call_deploy_1",
          state: "output-available",
          input: { service: "billing", day: "friday" },
          output: { status: "scheduled", ticket: "OPS-42" },
        },
        {
          type: "text",
          text: "Done: the billing deployment is scheduled for Friday (ticket OPS-42).",
        },
      ],
    });
    await append(main, {
      id: "u2",
      role: "user",
      createdAt: at(2),
      parts: [
        {
          type: "text",
          text: "Here is the dashboard screenshot after the rollout.",
        },
        imagePart(7, "dashboard.png"),
      ],
    });
    await append(
      main,
      text("a2", "assistant", "The error rate looks normal.", {
        createdAt: at(3),
      }),
    );
    // Two regenerated replies to u2: branches.
    await append(
      main,
      text("a2b", "assistant", "Latency is up 3% but within budget.", {
        createdAt: at(4),
      }),
      { parentId: "u2" },
    );
    await append(
      main,
      text("a2c", "assistant", "I see a spike in 5xx at 09:14; rolling back.", {
        createdAt: at(5),
      }),
      { parentId: "u2" },
    );
    // The same screenshot again: identical payloads are stored once.
    await append(main, {
      id: "u3",
      role: "user",
      createdAt: at(6),
      parts: [
        {
          type: "text",
          text: "Same screenshot, and the build log is attached below.",
        },
        imagePart(7, "dashboard-again.png"),
        imagePart(99, "graph.png"),
      ],
    });
    const log = largeLog();
    await append(main, text("a3", "assistant", log, { createdAt: at(7) }));
    await append(
      main,
      text(
        "u4",
        "user",
        "Thanks. Please summarise the incident for the postmortem.",
        { createdAt: at(8) },
      ),
    );
    await append(
      main,
      text(
        "a4",
        "assistant",
        "Postmortem draft: the Friday billing deploy caused a brief 5xx spike.",
        { createdAt: at(9) },
      ),
    );
    // An edit, an imported historical row, a compaction overlay, a deletion that splices.
    await main.updateMessage(
      text(
        "a4",
        "assistant",
        "Postmortem draft (edited): the Friday billing deploy caused a 5xx spike; rollback at 09:20.",
        { createdAt: at(9) },
      ),
    );
    await append(
      main,
      text("tmp", "user", "oops, sent too early", { createdAt: at(10) }),
    );
    await main.importMessage(
      text(
        "imported-u5",
        "user",
        "Imported from the old chat: also check the invoices queue.",
        { createdAt: at(11) },
      ),
      { parentId: "tmp", createdAt: at(11).getTime() },
    );
    track(main, "imported-u5");
    await main.deleteMessages(["tmp"]);
    written.set(
      "",
      written.get("").filter((id) => id !== "tmp"),
    );
    await append(
      main,
      text(
        "a5",
        "assistant",
        "The invoices queue is drained; nothing pending.",
        { createdAt: at(12) },
      ),
    );
    const overlay = await main.addCompaction(
      "User asked to deploy billing on Friday; scheduled as OPS-42; a dashboard screenshot was shared.",
      "u1",
      "a2",
    );

    // ---- A second session in the same object ----
    await append(
      support,
      text("s1", "user", "Mein Passwort funktioniert nicht mehr.", {
        createdAt: at(20),
      }),
    );
    await append(
      support,
      text(
        "s2",
        "assistant",
        "Ich habe einen Link zum Zurücksetzen geschickt.",
        { createdAt: at(21) },
      ),
    );
    await append(
      support,
      text("s2b", "assistant", "パスワードのリセットリンクを送信しました。", {
        createdAt: at(22),
      }),
      { parentId: "s1" },
    );
    await append(
      support,
      text("s3", "user", "Danke, es geht wieder.", { createdAt: at(23) }),
    );

    // The first search builds the FTS index the package keeps from then on.
    const searches = {};
    for (const [sessionId, query] of [
      ["", "deployment"],
      ["", "invoices"],
      ["", "zeppelin"],
      ["support", "Passwort"],
    ]) {
      const hits = await this.sessions.session(sessionId).search(query);
      searches[`${sessionId}:${query}`] = hits.map((hit) => hit.id);
    }

    const description = { sessions: {}, overlayId: overlay.id, searches };
    for (const [sessionId, ids] of written) {
      description.sessions[sessionId] = await describe(
        this.sessions.session(sessionId),
        ids,
      );
    }
    description.largeMessage = {
      id: "a3",
      characters: log.length,
      bytes: new TextEncoder().encode(log).length,
    };
    return description;
  }
}

/** What the package itself reads back for one session. */
async function describe(session, messageIds) {
  const messages = {};
  for (const id of messageIds) messages[id] = await session.getMessage(id);
  const branches = {};
  const children = new Map();
  for (const id of messageIds) {
    const kids = (await session.getBranches(id)).map((m) => m.id);
    if (kids.length > 0) branches[id] = kids;
    children.set(id, kids);
  }
  const leaves = messageIds.filter((id) => children.get(id).length === 0);
  const historyByLeaf = {};
  for (const leaf of leaves)
    historyByLeaf[leaf] = (await session.getHistory({ leafId: leaf })).map(
      (m) => m.id,
    );
  const history = await session.getHistory();
  return {
    sessionId: session.sessionId,
    messageIds,
    messages,
    latestLeafId: (await session.getLatestLeaf())?.id ?? null,
    activePathIds: history.map((m) => m.id),
    history,
    historyByLeaf,
    branches,
    overlays: await session.getCompactions(),
    rowStats: await session.getHistoryRowStats(),
  };
}
